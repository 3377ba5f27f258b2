import { api } from '../api.js'
import { count, field, h, say, when } from '../dom.js'

/** #/plan: the account's plan and limits, every plan, and the upgrade requests. */
export async function renderPlan(main, context) {
  const { plan, plans, requests } = await api('/plan')
  const current = plans.find((p) => p.name === plan)
  const message = h('textarea', { rows: 3, maxlength: 500 })
  const ask = (wanted) => async () => {
    try {
      await api('/plan/requests', { method: 'POST', body: { plan: wanted, message: message.value || undefined } })
      main.replaceChildren()
      await renderPlan(main, context)
      say(wanted === 'growth' ? 'Upgrade requested: the operator will move you to Growth' : 'Request sent: sales will contact you about Custom')
    } catch (error) {
      say(error.message, 'error')
    }
  }
  main.append(
    h('h1', {}, 'Plan'),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, `Your plan: ${plan}`),
      current
        ? h(
            'ul',
            { class: 'limits' },
            h('li', {}, `${count(current.requestsPerSecond)} requests per second`),
            h('li', {}, `${count(current.requestsPerDay)} requests per day`),
            h('li', {}, `batches of up to ${count(current.maxBatchSize)} calls`),
            h('li', {}, current.failoverAllowed ? 'failover to a partner provider: available' : 'failover to a partner provider: on Growth and Custom'),
          )
        : null,
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'More capacity and failover'),
      h('p', {}, 'Growth adds failover: calls our index cannot answer go to a partner provider. Custom has the highest limits.'),
      field('Message (optional)', message, 'What you need, e.g. expected traffic.'),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', onclick: ask('growth'), disabled: plan === 'growth' || plan === 'custom' }, 'Upgrade to Growth'),
        h('button', { type: 'button', class: 'secondary', onclick: ask('custom'), disabled: plan === 'custom' }, 'Contact sales for Custom'),
      ),
      requests.length === 0
        ? null
        : h('ul', { class: 'requests' }, requests.map((r) => h('li', {}, `${r.plan}: asked ${when(r.createdAt)} · ${r.grantedAt ? `granted ${when(r.grantedAt)}` : 'waiting for the operator'}`))),
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'All plans'),
      h(
        'div',
        { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': 'Plans and their limits' },
        h(
          'table',
          { class: 'numbers stack' },
          h('caption', { class: 'visually-hidden' }, 'Plans and their limits'),
          h('thead', {}, h('tr', {}, ['Plan', 'Requests/s', 'Requests/day', 'Batch', 'Failover'].map((t) => h('th', { scope: 'col' }, t)))),
          h(
            'tbody',
            {},
            plans.map((p) =>
              h(
                'tr',
                { class: p.name === plan ? 'current' : '' },
                h('th', { scope: 'row' }, p.name === plan ? `${p.name} (yours)` : p.name),
                h('td', { 'data-label': 'Requests/s' }, count(p.requestsPerSecond)),
                h('td', { 'data-label': 'Requests/day' }, count(p.requestsPerDay)),
                h('td', { 'data-label': 'Batch' }, count(p.maxBatchSize)),
                h('td', { 'data-label': 'Failover' }, p.failoverAllowed ? 'yes' : 'no'),
              ),
            ),
          ),
        ),
      ),
    ),
  )
}
