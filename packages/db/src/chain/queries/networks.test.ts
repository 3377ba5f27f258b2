import { describe, expect, test } from 'vitest'
import type { Db } from '../../client.js'
import { useTestDatabase } from '../../testing.js'
import { listNetworks, registerNetwork } from './networks.js'

let db: Db
useTestDatabase({ max: 4 }, (database) => (db = database.db))

describe('registerNetwork', () => {
  test('default', async () => {
    expect(await registerNetwork(db, { name: 'mainnet', chainId: 1n })).toEqual({ chainId: 1n, created: true, mismatch: null })
  })

  test('behavior: a later start with the same chain id', async () => {
    await registerNetwork(db, { name: 'same', chainId: 5n })
    expect(await registerNetwork(db, { name: 'same', chainId: 5n })).toEqual({ chainId: 5n, created: false, mismatch: null })
  })

  test('behavior: a later start with another chain id reports the mismatch and changes nothing', async () => {
    await registerNetwork(db, { name: 'sepolia', chainId: 11155111n })
    expect(await registerNetwork(db, { name: 'sepolia', chainId: 1n })).toEqual({
      chainId: 11155111n,
      created: false,
      mismatch: { stored: 11155111n, given: 1n },
    })
    expect((await listNetworks(db)).find((n) => n.name === 'sepolia')?.chainId).toBe(11155111n)
  })

  test('behavior: concurrent first starts register once', async () => {
    const results = await Promise.all([1, 2, 3, 4].map(() => registerNetwork(db, { name: 'race', chainId: 7n })))
    expect(results.filter((r) => r.created)).toHaveLength(1)
    expect(results.every((r) => r.chainId === 7n && r.mismatch === null)).toBe(true)
  })
})

describe('listNetworks', () => {
  test('default', async () => {
    const names = (await listNetworks(db)).map((n) => n.name)
    expect(names).toEqual([...names].sort())
    expect(names).toContain('mainnet')
  })
})
