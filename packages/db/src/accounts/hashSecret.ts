import { createHash } from 'node:crypto'
import type { Hex } from '@uncle-rpc/chain'

// The accounts never store a secret they hand out (API keys, key secrets, session cookies,
// emailed tokens), only its sha256, written `0x` + 64 lowercase hex digits. Rows already stored
// are found by that exact form, so it must never change.

/** The sha256 of a secret as stored: api_keys.key_hash and secret_hash, sessions.token_hash, account_tokens.token_hash. */
export function hashSecret(secret: string): Hex {
  return `0x${createHash('sha256').update(secret).digest('hex')}`
}

/** The same sha256 as raw bytes, for a constant-time comparison with a stored hash (no hex round trip on the hot path). */
export function secretDigest(secret: string): Buffer {
  return createHash('sha256').update(secret).digest()
}
