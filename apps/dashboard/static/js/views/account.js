import { api } from '../api.js'
import { field, h, say } from '../dom.js'

/** #/account: email status, password change, sign out everywhere. */
export async function renderAccount(main, context) {
  const { account } = context.state
  const current = h('input', { type: 'password', required: true, autocomplete: 'current-password' })
  const next = h('input', { type: 'password', required: true, minlength: 10, autocomplete: 'new-password' })
  const change = h('button', { type: 'submit' }, 'Change password')
  const onsubmit = async (event) => {
    event.preventDefault()
    change.disabled = true
    try {
      const result = await api('/password', { method: 'POST', body: { currentPassword: current.value, newPassword: next.value } })
      context.signedIn(result.account, result.csrfToken)
      current.value = ''
      next.value = ''
      say('Password changed: every other session is signed out')
    } catch (error) {
      say(error.message, 'error')
    } finally {
      change.disabled = false
    }
  }
  const everywhere = async () => {
    if (!window.confirm('Sign out on every device and browser, this one included?')) return
    try {
      await api('/signout/everywhere', { method: 'POST' })
    } finally {
      context.signedOut('Signed out everywhere')
    }
  }
  main.append(
    h('h1', {}, 'Account'),
    h('p', { class: 'lead' }, `${account.email} · plan ${account.plan} · email ${account.emailVerified ? 'verified' : 'not verified yet'}`),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'Password'),
      h(
        'form',
        { onsubmit },
        field('Current password', current),
        field('New password', next, 'At least 10 characters; not your email, not one character repeated, not a very common password.'),
        h('div', { class: 'actions' }, change),
      ),
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'Sessions'),
      h('p', {}, 'A session ends after 12 hours without use, and 7 days after sign-in at the latest.'),
      h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: everywhere }, 'Sign out everywhere')),
    ),
  )
}
