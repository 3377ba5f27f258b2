import { api } from '../api.js'
import { field, h, say } from '../dom.js'

/**
 * Sign in (and, when sign-up is open, Sign up) forms: one form at a time, so each field
 * has one clear label ("Email", "Password").
 */
export function renderAuth(main, { signupOpen, onSignedIn }) {
  const show = (mode) => {
    main.replaceChildren(form(mode))
    main.querySelector('h1')?.focus()
  }
  const form = (mode) => {
    const signup = mode === 'signup'
    const email = h('input', { type: 'email', name: 'email', autocomplete: 'email', required: true, inputmode: 'email' })
    const password = h('input', {
      type: 'password',
      name: 'password',
      required: true,
      minlength: signup ? 10 : undefined,
      autocomplete: signup ? 'new-password' : 'current-password',
    })
    const submit = h('button', { type: 'submit' }, signup ? 'Sign up' : 'Sign in')
    const onsubmit = async (event) => {
      event.preventDefault()
      submit.disabled = true
      try {
        const result = await api(signup ? '/signup' : '/signin', { method: 'POST', body: { email: email.value, password: password.value } })
        say(signup ? 'Account created: welcome' : 'Signed in')
        onSignedIn(result.account, result.csrfToken)
      } catch (error) {
        say(error.message, 'error')
        password.focus()
      } finally {
        submit.disabled = false
      }
    }
    return h(
      'section',
      { class: 'card narrow' },
      h('h1', { tabindex: '-1' }, signup ? 'Create your account' : 'Sign in to your dashboard'),
      h(
        'form',
        { onsubmit, novalidate: false },
        field('Email', email),
        field('Password', password, signup ? 'At least 10 characters.' : undefined),
        h('div', { class: 'actions' }, submit),
      ),
      signupOpen
        ? h(
            'p',
            {},
            signup ? 'Already have an account? ' : 'New here? ',
            h('button', { type: 'button', class: 'link', onclick: () => show(signup ? 'signin' : 'signup') }, signup ? 'Sign in instead' : 'Create an account'),
          )
        : h('p', { class: 'hint' }, 'Accounts are created by the operator of this service.'),
    )
  }
  main.append(form('signin'))
}
