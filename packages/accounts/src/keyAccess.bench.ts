import { hashSecret } from '@uncle-rpc/db/accounts'
import { bench, describe } from 'vitest'
import { accessAllowed, compileKeyAccess } from './keyAccess.js'

// Run: npx vitest bench --run packages/accounts/src/keyAccess.bench.ts
// The per-request cost of a key's restrictions at their most expensive (30 origins, 30 user
// agents, a secret, one network; the request matches the last entry of each), against a key
// without restrictions (compiled to undefined: one property check).

const worst = compileKeyAccess({
  networks: ['mainnet'],
  allowedOrigins: [...Array.from({ length: 28 }, (_, i) => `https://app${i}.example.com`), '*.dapp.example', 'https://bench.example.com'],
  allowedUserAgents: Array.from({ length: 30 }, (_, i) => `bench-agent-${i}/`),
  secretHash: hashSecret('bench secret'),
})!
const request = {
  network: 'mainnet',
  origin: 'https://bench.example.com',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) bench-agent-29/1.0',
  authorization: `Basic ${Buffer.from(':bench secret').toString('base64')}`,
}
const wildcard = { ...request, origin: 'https://deep.sub.dapp.example' }
const none = compileKeyAccess({ networks: null, allowedOrigins: [], allowedUserAgents: [], secretHash: null })

describe('key restrictions per request', () => {
  bench('no restrictions (undefined check)', () => {
    if (none !== undefined) accessAllowed(none, request)
  })
  bench('30 origins + 30 user agents + secret + network, exact origin', () => {
    accessAllowed(worst, request)
  })
  bench('same, wildcard origin (walks the suffixes)', () => {
    accessAllowed(worst, wildcard)
  })
  bench('same, the secret hashed every request (its header not remembered)', () => {
    worst.goodAuthorizations.clear()
    accessAllowed(worst, request)
  })
  let n = 0
  bench('same, a new Origin and User-Agent every request (nothing remembered)', () => {
    n++
    accessAllowed(worst, { ...request, origin: `https://x${n}.dapp.example`, userAgent: `client ${n} bench-agent-29/` })
  })
})
