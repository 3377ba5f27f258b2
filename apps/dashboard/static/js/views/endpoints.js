import { copyField, h } from '../dom.js'

/** The JSON-RPC methods every endpoint answers (eth_chainId and net_version too). */
export const servedMethods = [
  'eth_getUncleByBlockHashAndIndex',
  'eth_getUncleByBlockNumberAndIndex',
  'eth_getUncleCountByBlockHash',
  'eth_getUncleCountByBlockNumber',
]

/** The HTTP and WebSocket endpoint of each network, each with a Copy button, and the methods they answer. */
export function endpointList(endpoints) {
  return h(
    'div',
    { class: 'endpoints' },
    endpoints.map((e) =>
      h('fieldset', { class: 'endpoint' }, h('legend', {}, e.network), copyField(`HTTP endpoint (${e.network})`, e.http), copyField(`WebSocket endpoint (${e.network})`, e.ws)),
    ),
    h('p', { class: 'hint methods' }, `Methods: ${servedMethods.join(', ')} (and eth_chainId, net_version).`),
  )
}

/** The panel shown once after a key is created or rotated: the key and its endpoints. */
export function newKeyPanel(result) {
  return h(
    'section',
    { class: 'card new-key', 'aria-labelledby': 'new-key-title' },
    h('h2', { id: 'new-key-title' }, `Your new key "${result.key.name}"`),
    h('p', { class: 'warn' }, 'Copy it now: it is shown only this once. Only its hash is stored.'),
    copyField('API key', result.apiKey),
    endpointList(result.endpoints),
  )
}

/** Networks as checkboxes (none checked = every network). */
export function networkChoice(networks, chosen) {
  const boxes = networks.map((name) => h('input', { type: 'checkbox', name: 'network', value: name, checked: chosen?.includes(name) ?? false }))
  const fieldset = h(
    'fieldset',
    { class: 'networks' },
    h('legend', {}, 'Networks allowed'),
    h('p', { class: 'hint' }, 'None checked: every network.'),
    networks.length === 0 ? h('p', { class: 'hint' }, 'The RPC service serves no network.') : null,
    boxes.map((box) => h('label', { class: 'check' }, box, ` ${box.value}`)),
  )
  const value = () => {
    const checked = boxes.filter((b) => b.checked).map((b) => b.value)
    return checked.length === 0 ? null : checked
  }
  return { fieldset, value }
}
