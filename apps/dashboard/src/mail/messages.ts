import type { MailMessage } from './mailer.js'

// The dashboard's emails: what each says, and the link it carries. Links put the token in the
// URL fragment (#/reset/<token>), which browsers never send to a server, so no access log or
// proxy sees it.

/** Hours a verification link stays valid. */
export const verifyLinkHours = 24
/** Minutes a password reset link stays valid. */
export const resetLinkMinutes = 30

const footer = "If you did not ask for this, ignore this email: nothing changes until the link is opened."

/** "Verify your email": sent at sign-up (and on "send again"). */
export function verifyEmail(to: string, link: string): MailMessage {
  return {
    kind: 'verify',
    link,
    to,
    subject: 'Verify your email for the uncle-rpc dashboard',
    text: `Open this link to verify your email address and sign in (valid for ${verifyLinkHours} hours):\n\n${link}\n\nUntil then you can sign in, but not create API keys.\n\n${footer}\n`,
  }
}

/** "Reset your password": the way back in, past any sign-in lock. */
export function resetEmail(to: string, link: string): MailMessage {
  return {
    kind: 'reset',
    link,
    to,
    subject: 'Reset your uncle-rpc dashboard password',
    text: `Open this link to choose a new password and sign in (valid for ${resetLinkMinutes} minutes, once):\n\n${link}\n\nEvery other session of your account is signed out.\n\n${footer}\n`,
  }
}

/** Sent when someone signs up with an email that has an account: the answer on screen does not say so, the owner learns it here. */
export function alreadyRegisteredEmail(to: string, link: string): MailMessage {
  return {
    kind: 'signup-existing',
    link,
    to,
    subject: 'You already have an uncle-rpc dashboard account',
    text: `Someone (you?) tried to sign up with this email, which already has an account. To sign in with a new password, open this link (valid for ${resetLinkMinutes} minutes, once):\n\n${link}\n\n${footer}\n`,
  }
}
