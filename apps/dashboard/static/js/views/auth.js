import { api } from '../api.js'
import { field, h, say } from '../dom.js'

const passwordHint = 'At least 10 characters; not your email, not one character repeated, not a very common password.'

/**
 * Signed-out pages, one form at a time so each field has one clear label: Sign in, Sign up (when
 * open), Forgot password; and "Check your email" after sign-up or a reset request.
 */
export function renderAuth(main, { signupOpen, emailToLog, onSignedIn }) {
  const show = (node) => {
    main.replaceChildren(node)
    main.querySelector('h1')?.focus()
  }
  const switchTo = (label, mode) => h('button', { type: 'button', class: 'link', onclick: () => show(form(mode)) }, label)

  const checkEmail = (message) =>
    h(
      'section',
      { class: 'card narrow' },
      h('h1', { tabindex: '-1' }, 'Check your email'),
      h('p', {}, message),
      h(
        'p',
        { class: 'hint' },
        emailToLog
          ? 'The link works once. This server writes its emails to its log instead of sending them (no SMTP_URL, for development): the link is there.'
          : 'The link works once. Nothing arrived? Look in your spam folder, or try again in a few minutes.',
      ),
      h('p', {}, switchTo('Back to sign in', 'signin')),
    )

  const form = (mode) => {
    const signup = mode === 'signup'
    const forgot = mode === 'forgot'
    const email = h('input', { type: 'email', name: 'email', autocomplete: 'email', required: true, inputmode: 'email' })
    const password = forgot
      ? null
      : h('input', { type: 'password', name: 'password', required: true, minlength: signup ? 10 : undefined, autocomplete: signup ? 'new-password' : 'current-password' })
    const submit = h('button', { type: 'submit' }, signup ? 'Sign up' : forgot ? 'Send reset link' : 'Sign in')
    const onsubmit = async (event) => {
      event.preventDefault()
      submit.disabled = true
      try {
        if (signup || forgot) {
          const result = await api(signup ? '/signup' : '/password/forgot', { method: 'POST', body: signup ? { email: email.value, password: password.value } : { email: email.value } })
          say('Email sent')
          show(checkEmail(result.message))
          return
        }
        const result = await api('/signin', { method: 'POST', body: { email: email.value, password: password.value } })
        say('Signed in')
        onSignedIn(result.account, result.csrfToken)
      } catch (error) {
        say(error.message, 'error')
        ;(password ?? email).focus()
      } finally {
        submit.disabled = false
      }
    }
    return h(
      'section',
      { class: 'card narrow' },
      h('h1', { tabindex: '-1' }, signup ? 'Create your account' : forgot ? 'Reset your password' : 'Sign in to your dashboard'),
      forgot ? h('p', {}, 'We email you a link to choose a new password. It also gets you past a sign-in lock.') : null,
      h(
        'form',
        { onsubmit },
        field('Email', email),
        password ? field('Password', password, signup ? passwordHint : undefined) : null,
        h('div', { class: 'actions' }, submit),
      ),
      mode === 'signin' ? h('p', {}, switchTo('Forgot your password?', 'forgot')) : null,
      signupOpen
        ? h('p', {}, signup ? 'Already have an account? ' : 'New here? ', signup ? switchTo('Sign in instead', 'signin') : switchTo('Create an account', 'signup'))
        : h('p', { class: 'hint' }, 'Accounts are created by the operator of this service.'),
    )
  }
  main.append(form('signin'))
}

/** #/reset/<token>: choose a new password; signs in. */
export function renderReset(main, { token, onSignedIn }) {
  const password = h('input', { type: 'password', name: 'password', required: true, minlength: 10, autocomplete: 'new-password' })
  const submit = h('button', { type: 'submit' }, 'Set password and sign in')
  const onsubmit = async (event) => {
    event.preventDefault()
    submit.disabled = true
    try {
      const result = await api('/password/reset', { method: 'POST', body: { token, password: password.value } })
      say('Password changed: you are signed in, and signed out everywhere else')
      onSignedIn(result.account, result.csrfToken)
    } catch (error) {
      say(error.message, 'error')
      password.focus()
    } finally {
      submit.disabled = false
    }
  }
  main.append(
    h(
      'section',
      { class: 'card narrow' },
      h('h1', { tabindex: '-1' }, 'Choose a new password'),
      h('form', { onsubmit }, field('New password', password, passwordHint), h('div', { class: 'actions' }, submit)),
    ),
  )
}

/** #/verify/<token>: verifies the email and signs in. */
export async function verifyFromLink(token, { onSignedIn }) {
  const result = await api('/verify', { method: 'POST', body: { token } })
  say('Email verified: you can create API keys now')
  onSignedIn(result.account, result.csrfToken)
}
