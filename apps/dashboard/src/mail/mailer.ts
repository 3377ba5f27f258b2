import type { Logger } from '@uncle-rpc/config'
import nodemailer from 'nodemailer'

/** One email: plain text (the links are the whole point; no HTML to get wrong). */
export type MailMessage = {
  to: string
  subject: string
  text: string
  /** What it is, for the log. */
  kind: string
  /** The link in the text (log mode prints it on its own). */
  link: string
}

/** Sends the dashboard's email. */
export type Mailer = {
  /** `smtp` (SMTP_URL set) or `log` (development: the message is written to the log). */
  readonly mode: 'smtp' | 'log'
  send(message: MailMessage): Promise<void>
  close(): void
}

export type CreateMailerParameters = {
  /** `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465`; undefined = log mode. */
  smtpUrl?: string | undefined
  /** The From address. */
  from: string
}

/**
 * Email through nodemailer's SMTP transport (SMTP_URL). Without SMTP_URL, as in development and
 * `npm start`, each message — links included — is written to the log instead of being sent, so
 * a developer can click through sign-up and password reset on one machine. Never use log mode
 * where others can read the log: the links sign people in.
 */
export function createMailer({ logger }: { logger: Logger }, { smtpUrl, from }: CreateMailerParameters): Mailer {
  if (smtpUrl === undefined) {
    return {
      mode: 'log',
      async send({ to, subject, kind, link }) {
        // Note: one readable line for `npm start`: who it was for and the link to open.
        logger.warn({ msg: `email not sent (SMTP_URL is unset): "${subject}" to ${to}; open`, link, kind })
      },
      close() {},
    }
  }
  // Note: timeouts so that a silent mail server fails the request instead of hanging it.
  const transport = nodemailer.createTransport({ url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 }, { from })
  return {
    mode: 'smtp',
    async send({ to, subject, text, kind }) {
      await transport.sendMail({ to, subject, text })
      logger.info({ msg: 'email sent', kind })
    },
    close: () => transport.close(),
  }
}
