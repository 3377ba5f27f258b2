import { describe, expect, test } from 'vitest'
import { createInFlightLookups, type InFlightKey } from './inFlightLookups.js'

const hash = (digits: string) => `0x${digits.padEnd(64, '0')}`
const lookup = (blockHash: string, quantity = '0x0', network = 'mainnet'): InFlightKey & { id: number } => ({ network, blockHash, quantity, id: Math.random() })

describe('createInFlightLookups', () => {
  test('behavior: a listed lookup is found by its network, hash and index, and only by them', () => {
    const table = createInFlightLookups<ReturnType<typeof lookup>>()
    const a = lookup(hash('abc1'))
    expect(table.add(a)).toBe(true)
    expect(table.find('mainnet', a.blockHash, '0x0')).toBe(a)
    expect(table.find('mainnet', a.blockHash, '0x1')).toBeUndefined()
    expect(table.find('sepolia', a.blockHash, '0x0')).toBeUndefined()
    // Same first three digits (the same slot), another hash.
    expect(table.find('mainnet', hash('abc2'), '0x0')).toBeUndefined()
    table.remove(a)
    expect(table.find('mainnet', a.blockHash, '0x0')).toBeUndefined()
  })

  test('behavior: a lookup whose slot is taken is not listed, and removing it leaves the listed one', () => {
    const table = createInFlightLookups<ReturnType<typeof lookup>>()
    const first = lookup(hash('fff0'))
    const other = lookup(hash('fff9'), '0x1')
    expect(table.add(first)).toBe(true)
    expect(table.add(other)).toBe(false)
    table.remove(other)
    expect(table.find('mainnet', first.blockHash, '0x0')).toBe(first)
    table.remove(first)
    expect(table.add(other)).toBe(true)
    expect(table.find('mainnet', other.blockHash, '0x1')).toBe(other)
  })

  test('behavior: hashes that differ in their first three digits take slots of their own', () => {
    const table = createInFlightLookups<ReturnType<typeof lookup>>()
    const all = Array.from({ length: 4096 }, (_, i) => lookup(hash(i.toString(16).padStart(3, '0'))))
    expect(all.every((l) => table.add(l))).toBe(true)
    expect(all.every((l) => table.find('mainnet', l.blockHash, '0x0') === l)).toBe(true)
  })
})
