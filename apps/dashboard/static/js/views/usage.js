import { api } from '../api.js'
import { barChart } from '../chart.js'
import { count, field, h, refusalReasons, refusedOf } from '../dom.js'

const dayLabel = (at) => at.slice(5)
const hourLabel = (at) => `${at.slice(11, 13)}:00`

/** The refused requests of a point and, when there are any, why: "3 (Origin 2, secret 1)". */
function refusedCell(p) {
  const total = refusedOf(p)
  if (total === 0) return '0'
  const why = refusalReasons.filter(([field]) => p[field] > 0).map(([field, reason]) => `${reason} ${count(p[field])}`)
  return `${count(total)} (${why.join(', ')})`
}

const columns = ['Requests', 'Errors', 'Rate-limited', 'Forwarded', 'Refused (401/403)']

function table(caption, first, points, label) {
  const busy = points.filter((p) => p.requests > 0 || p.errors > 0 || p.forwarded > 0 || p.rateLimited > 0 || refusedOf(p) > 0)
  if (busy.length === 0) return h('p', { class: 'hint' }, 'No calls in this period.')
  return [
    h('p', { class: 'table-title' }, 'Numbers ', h('span', { class: 'hint' }, '(periods without calls left out)')),
    h(
    'div',
    { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': caption },
    h(
      'table',
      // Note: "stack": on a phone each period becomes a card of labelled values (app.css), not columns cut off at the edge.
      { class: 'numbers stack' },
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', {}, h('tr', {}, [first, ...columns].map((t) => h('th', { scope: 'col' }, t)))),
      h(
        'tbody',
        {},
        [...busy].reverse().map((p) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, label(p.at)),
            [count(p.requests), count(p.errors), count(p.rateLimited), count(p.forwarded), refusedCell(p)].map((value, i) => h('td', { 'data-label': columns[i] }, value)),
          ),
        ),
      ),
    ),
  ),
  ]
}

function chartSection(title, first, points, label) {
  const total = points.reduce((n, p) => n + p.requests, 0)
  const refused = points.reduce((n, p) => n + refusedOf(p), 0)
  return h(
    'section',
    { class: 'card' },
    h('h2', {}, title),
    h('p', { class: 'lead' }, `${count(total)} ${total === 1 ? 'call' : 'calls'}, ${count(refused)} refused`),
    barChart({ title, points, label }),
    h(
      'p',
      { class: 'legend' },
      h('span', { class: 'swatch ok' }),
      ' answered ',
      h('span', { class: 'swatch err' }),
      ' errors (rate-limited included) ',
      h('span', { class: 'swatch refused' }),
      ' refused before an answer: revoked key (401) or a restriction of the key (403; not billed)',
    ),
    table(`${title}: numbers`, first, points, label),
  )
}

/** Calls per JSON-RPC method over the 30 days (method null: counted before usage was kept per method). */
function methodSection(methods) {
  const title = 'Requests per method (last 30 days)'
  const name = (m) => (m === null ? 'Not recorded per method (before it was kept)' : 'Other (no method served here)')
  return h(
    'section',
    { class: 'card' },
    h('h2', {}, title),
    methods.length === 0
      ? h('p', { class: 'hint' }, 'No calls in this period.')
      : h(
          'div',
          { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': title },
          h(
            'table',
            { class: 'numbers stack' },
            h('caption', { class: 'visually-hidden' }, title),
            h('thead', {}, h('tr', {}, ['Method', 'Requests', 'Rate-limited'].map((t) => h('th', { scope: 'col' }, t)))),
            h(
              'tbody',
              {},
              methods.map((m) =>
                h('tr', {}, h('th', { scope: 'row' }, m.method === null || m.method === '(other)' ? name(m.method) : h('code', {}, m.method)), h('td', { 'data-label': 'Requests' }, count(m.requests)), h('td', { 'data-label': 'Rate-limited' }, count(m.rateLimited))),
              ),
            ),
          ),
        ),
  )
}

/** #/usage?key=<id>&network=<name>: calls per day (30 days), per hour (24 hours) and per method (30 days). */
export async function renderUsage(main) {
  const params = new URLSearchParams(location.hash.split('?')[1] ?? '')
  const [{ keys, networks }, usage] = await Promise.all([api('/keys'), api(`/usage?${params}`)])
  const keySelect = h('select', { name: 'key' }, h('option', { value: '' }, 'All keys'), keys.map((k) => h('option', { value: k.id, selected: params.get('key') === String(k.id) }, `${k.name} (${k.prefix}…)`)))
  const networkSelect = h('select', { name: 'network' }, h('option', { value: '' }, 'All networks'), networks.map((n) => h('option', { value: n, selected: params.get('network') === n }, n)))
  const onsubmit = (event) => {
    event.preventDefault()
    const next = new URLSearchParams()
    if (keySelect.value) next.set('key', keySelect.value)
    if (networkSelect.value) next.set('network', networkSelect.value)
    location.hash = `#/usage${next.size > 0 ? `?${next}` : ''}`
  }
  main.append(
    h('h1', {}, 'Usage'),
    h('p', { class: 'lead' }, 'Counted by the RPC service and written every few seconds; days and hours are UTC.'),
    h('form', { class: 'card filters', onsubmit }, h('div', { class: 'pair' }, field('Key', keySelect), field('Network', networkSelect)), h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Show usage'))),
    chartSection('Requests per day (last 30 days)', 'Day', usage.daily, dayLabel),
    chartSection('Requests per hour (last 24 hours)', 'Hour (UTC)', usage.hourly, hourLabel),
    methodSection(usage.methods),
  )
}
