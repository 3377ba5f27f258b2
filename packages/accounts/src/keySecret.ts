import { randomBytes } from 'node:crypto'
import type { Hex } from '@uncle-rpc/chain'
import { hashSecret } from '@uncle-rpc/db/accounts'

/** A key's new secret: the secret and the header that sends it are shown once; only the hash is stored. */
export type KeySecret = { secret: string; secretHash: Hex; authorization: string }

/**
 * A new secret for an API key: 192 random bits, base64url. Requests send it as HTTP Basic with an
 * empty user name (`authorization`), which basicPassword (keyAccess.ts) reads back.
 */
export function newKeySecret(): KeySecret {
  const secret = randomBytes(24).toString('base64url')
  return { secret, secretHash: hashSecret(secret), authorization: `Basic ${Buffer.from(`:${secret}`).toString('base64')}` }
}
