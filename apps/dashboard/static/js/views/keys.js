import { api } from '../api.js'
import { field, h, say, when } from '../dom.js'
import { networkChoice, newKeyPanel } from './endpoints.js'

/** The "verify your email" notice, with "send again". */
function verifyNotice(email) {
  const resend = async () => {
    try {
      say((await api('/verify/send', { method: 'POST' })).message)
    } catch (error) {
      say(error.message, 'error')
    }
  }
  return h(
    'section',
    { class: 'card notice' },
    h('h2', {}, 'Verify your email'),
    h('p', {}, `Open the link we sent to ${email} to create API keys.`),
    h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: resend }, 'Send the link again')),
  )
}

/** #/keys: the create form and the account's keys (a page at a time: "Show more keys"). */
export async function renderKeys(main, { state }) {
  const { keys, networks, nextAfter } = await api('/keys')
  const name = h('input', { type: 'text', name: 'name', required: true, maxlength: 100, autocomplete: 'off' })
  const choice = networkChoice(networks)
  const created = h('div', {})
  const submit = h('button', { type: 'submit' }, 'Create key')
  const onsubmit = async (event) => {
    event.preventDefault()
    submit.disabled = true
    try {
      const result = await api('/keys', { method: 'POST', body: { name: name.value, networks: choice.value() } })
      say(`Key "${result.key.name}" created: copy it now, it is shown only once`)
      main.replaceChildren()
      await renderKeys(main, { state })
      main.querySelector('.created').append(newKeyPanel(result))
      main.querySelector('.new-key input')?.focus()
    } catch (error) {
      say(error.message, 'error')
    } finally {
      submit.disabled = false
    }
  }
  created.className = 'created'
  const tbody = h('tbody', {}, keys.map(keyRow))
  // Note: the API pages keys (50 at a time); further pages are appended to the same table.
  let after = nextAfter
  const more = h('div', { class: 'actions' })
  const showMore = h('button', { type: 'button', class: 'secondary' }, 'Show more keys')
  showMore.addEventListener('click', async () => {
    try {
      const page = await api(`/keys?after=${after}`)
      tbody.append(...page.keys.map(keyRow))
      after = page.nextAfter
      if (after === null) more.replaceChildren()
    } catch (error) {
      say(error.message, 'error')
    }
  })
  if (after !== null) more.append(showMore)
  main.append(
    h('h1', {}, 'API keys'),
    h('p', { class: 'lead' }, `Signed in as ${state.account.email} · plan ${state.account.plan}`),
    ...(state.account.emailVerified ? [] : [verifyNotice(state.account.email)]),
    created,
    h('section', { class: 'card' }, h('h2', {}, 'New key'), h('form', { onsubmit }, field('Key name', name, 'Shown in your lists, e.g. "web app (production)".'), choice.fieldset, h('div', { class: 'actions' }, submit))),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'Your keys'),
      h('p', { class: 'hint' }, 'Last used is updated about once a minute.'),
      keys.length === 0
        ? h('p', {}, 'No keys yet: create one above.')
        : h(
            'div',
            { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': 'Your API keys' },
            h(
              'table',
              { class: 'stack' },
              h('caption', { class: 'visually-hidden' }, 'Your API keys'),
              h('thead', {}, h('tr', {}, ['Name', 'Prefix', 'Created', 'Last used', 'Status', ''].map((t) => h('th', { scope: 'col' }, t)))),
              tbody,
            ),
          ),
      more,
    ),
  )
}

/** One row of the keys table. */
function keyRow(k) {
  return h(
    'tr',
    { class: k.revokedAt ? 'revoked' : '' },
    h('th', { scope: 'row' }, k.name),
    h('td', { class: 'mono', 'data-label': 'Prefix' }, `${k.prefix}…`),
    h('td', { 'data-label': 'Created' }, when(k.createdAt)),
    h('td', { 'data-label': 'Last used' }, when(k.lastUsedAt)),
    h('td', { 'data-label': 'Status' }, k.revokedAt ? `revoked ${k.revokedAt.slice(0, 10)}` : 'active'),
    h('td', {}, k.revokedAt ? '' : h('a', { href: `#/keys/${k.id}`, 'aria-label': `Settings of ${k.name}` }, 'Settings')),
  )
}
