// Tiny DOM helpers. Text always goes in as text (never as HTML), so a key named
// "<img src=x onerror=…>" is shown as those characters.

/**
 * Creates an element: h('button', { type: 'button', onclick }, 'Revoke').
 * Attributes starting with "on" become listeners; true/false toggle boolean attributes.
 * @param {string} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {...(Node|string|number|null|undefined|false|Array<Node|string>)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value)
    else if (value === true) el.setAttribute(name, '')
    else el.setAttribute(name, String(value))
  }
  append(el, children)
  return el
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    if (Array.isArray(child)) append(el, child)
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)))
  }
}

let ids = 0
/** A unique id for label/field pairs. */
export function uid(prefix) {
  ids += 1
  return `${prefix}-${ids}`
}

/**
 * A labelled field: <label for> + control (+ hint tied with aria-describedby).
 * @param {string} label @param {HTMLElement} control @param {string} [hint]
 */
export function field(label, control, hint) {
  const id = control.id || uid('f')
  control.id = id
  const hintEl = hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id)
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hintEl)
}

const status = () => document.getElementById('status')

/** Announces a message in the live region (screen readers read it). */
export function say(message, kind = 'ok') {
  const el = status()
  el.textContent = message
  el.dataset.kind = kind
}

/** Clears the live region. */
export function quiet() {
  const el = status()
  el.textContent = ''
  delete el.dataset.kind
}

/** A read-only value with a "Copy" button that copies it. */
export function copyField(label, value) {
  const input = h('input', { type: 'text', readonly: true, value, class: 'mono', spellcheck: 'false' })
  const button = h('button', { type: 'button', class: 'secondary', 'aria-label': `Copy ${label}` }, 'Copy')
  button.addEventListener('click', async () => {
    input.select()
    try {
      await navigator.clipboard.writeText(value)
      say(`${label} copied`)
    } catch {
      say('Copy blocked by the browser: the text is selected, press Ctrl+C', 'error')
    }
  })
  const wrap = field(label, input)
  wrap.append(button)
  wrap.classList.add('copy')
  return wrap
}

/** Formats a count with thousands separators. */
export const count = (n) => new Intl.NumberFormat('en-US').format(n)

/** The reasons a request of a key is refused before it is answered, as usage points name them (the API's refused* fields). */
export const refusalReasons = [
  ['refusedRevoked', 'revoked key (401)'],
  ['refusedNetwork', 'network'],
  ['refusedOrigin', 'Origin'],
  ['refusedUserAgent', 'User-Agent'],
  ['refusedSecret', 'secret'],
]

/** Requests of a usage point refused before an answer (401 revoked, 403 restrictions). */
export const refusedOf = (p) => refusalReasons.reduce((n, [field]) => n + p[field], 0)

/** Formats an ISO time as "2026-11-22 18:05 UTC", or "never". */
export const when = (iso) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : 'never')
