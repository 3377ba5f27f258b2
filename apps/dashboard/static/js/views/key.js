import { api } from '../api.js'
import { copyField, count, field, h, say, when } from '../dom.js'
import { endpointList, networkChoice, newKeyPanel } from './endpoints.js'

const lines = (text) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')

/** #/keys/<id>: a key's settings, secret, endpoints, rotate and revoke. */
export async function renderKey(main, context, id) {
  const [{ key, endpoints }, { networks }] = await Promise.all([api(`/keys/${id}`), api('/keys')])
  const rerender = async (message) => {
    main.replaceChildren()
    await renderKey(main, context, id)
    if (message) say(message)
  }

  const name = h('input', { type: 'text', required: true, maxlength: 100, value: key.name })
  const choice = networkChoice(networks, key.networks)
  const origins = h('textarea', { rows: 4, spellcheck: 'false', class: 'mono' })
  origins.value = key.allowedOrigins.join('\n')
  const agents = h('textarea', { rows: 3, spellcheck: 'false', class: 'mono' })
  agents.value = key.allowedUserAgents.join('\n')
  const rps = h('input', { type: 'number', min: 1, max: key.planLimits.requestsPerSecond, inputmode: 'numeric', value: key.rpsCap ?? '' })
  const daily = h('input', { type: 'number', min: 1, max: key.planLimits.requestsPerDay, inputmode: 'numeric', value: key.dailyCap ?? '' })
  const save = h('button', { type: 'submit' }, 'Save settings')
  const onsubmit = async (event) => {
    event.preventDefault()
    save.disabled = true
    try {
      await api(`/keys/${id}`, {
        method: 'PATCH',
        body: {
          name: name.value,
          networks: choice.value(),
          allowedOrigins: lines(origins.value),
          allowedUserAgents: lines(agents.value),
          rpsCap: rps.value === '' ? null : Number(rps.value),
          dailyCap: daily.value === '' ? null : Number(daily.value),
        },
      })
      await rerender('Settings saved: the RPC service applies them within 5 seconds')
    } catch (error) {
      say(error.message, 'error')
    } finally {
      save.disabled = false
    }
  }

  const secretArea = h('div', {})
  const newSecret = async () => {
    try {
      const { secret, authorization } = await api(`/keys/${id}/secret`, { method: 'POST' })
      secretArea.replaceChildren(
        h('p', { class: 'warn' }, 'Copy the secret now: it is shown only this once. Every request must now send it.'),
        copyField('Key secret', secret),
        copyField('Authorization header', `Authorization: ${authorization}`),
      )
      say('Secret created: requests without it are now refused')
    } catch (error) {
      say(error.message, 'error')
    }
  }
  const dropSecret = async () => {
    try {
      await api(`/keys/${id}/secret`, { method: 'DELETE' })
      await rerender('The key no longer requires a secret')
    } catch (error) {
      say(error.message, 'error')
    }
  }
  // A key with a secret: rotate the secret too (after a leak) or keep it; the choice is explicit.
  const secretChoice = key.requireSecret
    ? ['new', 'keep'].map((value) => h('input', { type: 'radio', name: 'rotate-secret', value, checked: value === 'new' }))
    : []
  const rotate = async () => {
    const choice = secretChoice.find((r) => r.checked)?.value
    const what = choice === 'new' ? ' and a new secret' : choice === 'keep' ? ' (the secret stays the same)' : ''
    if (!window.confirm(`Rotate "${key.name}"? A new key${what} replaces it, with the same settings; the old key stops working.`)) return
    try {
      const result = await api(`/keys/${id}/rotate`, { method: 'POST', body: choice === undefined ? {} : { secret: choice } })
      main.replaceChildren(
        h('h1', {}, 'Key rotated'),
        newKeyPanel(result),
        result.secret
          ? h(
              'section',
              { class: 'card' },
              h('h2', {}, 'Its new secret'),
              h('p', { class: 'warn' }, 'Copy the secret now: it is shown only this once. The old secret no longer works.'),
              copyField('Key secret', result.secret),
              copyField('Authorization header', `Authorization: ${result.authorization}`),
            )
          : null,
        h('p', {}, h('a', { href: `#/keys/${result.key.id}` }, 'Settings of the new key')),
      )
      say(result.secret ? 'Key and secret rotated: copy them now, they are shown only once' : 'Key rotated: copy the new key now, it is shown only once')
    } catch (error) {
      say(error.message, 'error')
    }
  }
  const revoke = async () => {
    if (!window.confirm(`Revoke "${key.name}"? Requests with it are refused from now on. This cannot be undone.`)) return
    try {
      await api(`/keys/${id}/revoke`, { method: 'POST' })
      say(`Key "${key.name}" revoked`)
      context.go('#/keys')
    } catch (error) {
      say(error.message, 'error')
    }
  }

  main.append(
    h('p', { class: 'crumbs' }, h('a', { href: '#/keys' }, 'API keys'), ' / ', key.name),
    h('h1', {}, `Key "${key.name}"`),
    h('p', { class: 'lead' }, `Prefix ${key.prefix}… · created ${when(key.createdAt)} · last used ${when(key.lastUsedAt)}`),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'Settings'),
      h('p', { class: 'hint' }, 'Restrictions of different kinds must all pass; within one kind, any entry may match. At most 30 entries per kind. A refused request gets HTTP 403 (-32002).'),
      h(
        'form',
        { onsubmit },
        field('Key name', name),
        choice.fieldset,
        field('Allowed origins', origins, 'One per line: https://app.example.com, app.example.com or *.example.com. Empty: any origin.'),
        field('Allowed user agents', agents, 'One per line; a request passes when its User-Agent contains one. Empty: any.'),
        h(
          'div',
          { class: 'pair' },
          field('Requests per second', rps, `Empty: your plan's ${count(key.planLimits.requestsPerSecond)}.`),
          field('Requests per day', daily, `Empty: your plan's ${count(key.planLimits.requestsPerDay)}.`),
        ),
        h('div', { class: 'actions' }, save),
      ),
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'Key secret'),
      h('p', {}, key.requireSecret ? 'Required: every request must send the secret (HTTP Basic, empty user name, the secret as password).' : 'Not required.'),
      secretArea,
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', class: 'secondary', onclick: newSecret }, key.requireSecret ? 'New secret' : 'Require secret'),
        key.requireSecret ? h('button', { type: 'button', class: 'secondary', onclick: dropSecret }, 'Stop requiring secret') : null,
      ),
    ),
    h('section', { class: 'card' }, h('h2', {}, 'Endpoints'), h('p', { class: 'hint' }, 'Put your key where it says <API_KEY> (the full key was shown once, when it was created).'), endpointList(endpoints)),
    h(
      'section',
      { class: 'card danger' },
      h('h2', {}, 'Rotate or revoke'),
      key.requireSecret
        ? h(
            'fieldset',
            { class: 'choice' },
            h('legend', {}, 'When rotating, the secret'),
            h('label', { class: 'check' }, secretChoice[0], ' Rotate it too: a new secret, shown once (after a leak)'),
            h('label', { class: 'check' }, secretChoice[1], ' Keep it: clients keep sending the same secret'),
          )
        : null,
      h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: rotate }, 'Rotate'), h('button', { type: 'button', class: 'danger', onclick: revoke }, 'Revoke')),
    ),
  )
}
