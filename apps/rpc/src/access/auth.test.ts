import { createLogger } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import { createApiKey, findApiKey, generateApiKey, hashSecret, revokeApiKey } from '@uncle-rpc/db/accounts'
import { useTestDatabase } from '@uncle-rpc/db/testing'
import { describe, expect, test } from 'vitest'
import { type AuthResult, createAuth, type KeyStore } from './auth.js'
import { createDbKeyStore } from '@uncle-rpc/accounts'

const logger = createLogger({ level: 'fatal', name: 'auth-test' })
const invalid = '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"invalid project id"}}'
const missing = '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"project id required in the url"}}'

let db: Db
useTestDatabase({ max: 2 }, (opened) => (db = opened.db))

/** The real api_keys store, counting the calls that reach Postgres. */
function countingStore() {
  const store = createDbKeyStore(db)
  const calls = { find: 0, all: 0, touch: 0 }
  const counted: KeyStore = {
    find: (h) => (calls.find++, store.find(h)),
    all: () => (calls.all++, store.all()),
    touch: (hs, at) => (calls.touch++, store.touch(hs, at)),
  }
  return { store: counted, calls }
}

describe('createAuth', () => {
  test('default: keys loaded at refresh are checked synchronously', async () => {
    const { key, row } = await createApiKey(db, { plan: 'team', label: 'a', rpsLimit: 7 })
    const { store, calls } = countingStore()
    const auth = createAuth({ store, logger })
    await auth.refresh()
    const result = auth.authenticate(key) as AuthResult
    // The key's own override (7 rps) and the team plan's other limits.
    expect(result).toEqual({
      ok: true,
      key: {
        id: row.id,
        keyHash: row.keyHash,
        plan: 'team',
        revoked: false,
        requestsPerSecond: 7,
        requestsPerDay: 2_000_000,
        maxBatchSize: 1000,
        failoverAllowed: false,
        failover: false,
      },
    })
    expect(auth.authenticate(key)).not.toBeInstanceOf(Promise)
    expect(calls).toEqual({ find: 0, all: 1, touch: 0 })
    await auth.stop()
  })

  test('behavior: a key created after the last reload is found on a miss, once for concurrent requests', async () => {
    const { store, calls } = countingStore()
    const auth = createAuth({ store, logger })
    await auth.refresh()
    const { key } = await createApiKey(db, { plan: 'core' })
    const results = await Promise.all([auth.authenticate(key), auth.authenticate(key), auth.authenticate(key)])
    expect(results.every((r) => r.ok)).toBe(true)
    expect(calls.find).toBe(1)
    expect(auth.authenticate(key)).toMatchObject({ ok: true })
    await auth.stop()
  })

  test('error: missing, implausible, unknown keys; a flood of one bad key asks Postgres once', async () => {
    const { store, calls } = countingStore()
    const auth = createAuth({ store, logger }, { negativeTtlMs: 60_000 })
    expect(auth.authenticate(undefined)).toEqual({ ok: false, status: 401, body: missing })
    expect(auth.authenticate('')).toEqual({ ok: false, status: 401, body: missing })
    expect(auth.authenticate('x'.repeat(129))).toEqual({ ok: false, status: 401, body: invalid })
    expect(auth.authenticate('a/b')).toEqual({ ok: false, status: 401, body: invalid })
    const bad = generateApiKey()
    for (let i = 0; i < 1000; i++) expect(await auth.authenticate(bad)).toEqual({ ok: false, status: 401, body: invalid })
    expect(calls.find).toBe(1)
    await auth.stop()
  })

  test('behavior: revocation takes effect at the next reload', async () => {
    const { key } = await createApiKey(db, { plan: 'core' })
    const auth = createAuth({ store: createDbKeyStore(db), logger })
    await auth.refresh()
    expect(auth.authenticate(key)).toMatchObject({ ok: true })
    await revokeApiKey(db, { keyHash: hashSecret(key) })
    expect(auth.authenticate(key)).toMatchObject({ ok: true })
    await auth.refresh()
    // The same 401 as an unknown key, naming the key for usage (refused_revoked).
    expect(auth.authenticate(key)).toEqual({ ok: false, status: 401, body: invalid, revoked: expect.objectContaining({ revoked: true, keyHash: hashSecret(key) }) })
    await auth.stop()
  })

  test('behavior: last_used_at is written in one batch, not per request', async () => {
    const a = await createApiKey(db, { plan: 'core' })
    const b = await createApiKey(db, { plan: 'core' })
    const { store, calls } = countingStore()
    const auth = createAuth({ store, logger })
    await auth.refresh()
    for (let i = 0; i < 100; i++) {
      auth.authenticate(a.key)
      auth.authenticate(b.key)
    }
    expect((await findApiKey(db, { keyHash: a.row.keyHash }))?.lastUsedAt).toBeNull()
    await auth.flushUsage()
    await auth.flushUsage()
    expect(calls.touch).toBe(1)
    expect((await findApiKey(db, { keyHash: a.row.keyHash }))?.lastUsedAt).toBeInstanceOf(Date)
    expect((await findApiKey(db, { keyHash: b.row.keyHash }))?.lastUsedAt).toBeInstanceOf(Date)
    await auth.stop()
  })

  test('default: keys are 32 lowercase hex characters; the hash is sha256', () => {
    expect(generateApiKey()).toMatch(/^[0-9a-f]{32}$/)
    expect(hashSecret('abc')).toBe('0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  })
})
