import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto'

// Passwords are stored only as scrypt hashes (memory-hard, node:crypto): `scrypt$N$r$p$salt$hash`,
// base64url, so the cost can be raised later without breaking stored hashes.

/** scrypt cost: N = 2^15, r = 8 (32 MiB, about 60 ms here), p = 1. */
const defaultScryptCost = { N: 2 ** 15, r: 8, p: 1 } as const
const keyLength = 32

function derive(password: string, salt: Buffer, { N, r, p }: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r }
  return new Promise((resolve, reject) => scrypt(password.normalize('NFKC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key))))
}

/** A new scrypt hash of `password` with a random 16-byte salt. */
export async function hashPassword(password: string, cost: { N: number; r: number; p: number } = defaultScryptCost): Promise<string> {
  const salt = randomBytes(16)
  const hash = await derive(password, salt, cost)
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), hash.toString('base64url')].join('$')
}

/** Whether `password` matches the stored hash (constant-time compare); false for a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false
  const expected = Buffer.from(hash, 'base64url')
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) })
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}

// Note: signing in to an unknown email still costs one scrypt, so timing does not tell which emails exist.
let dummy: Promise<string> | undefined
/** Spends the time of one verification (for unknown emails). */
export async function burnVerification(password: string): Promise<void> {
  dummy ??= hashPassword('not a real password')
  await verifyPassword(password, await dummy)
}
