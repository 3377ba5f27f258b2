import { describe, expect, test } from 'vitest'
import { formatPath, suggestKey } from './issues.js'

describe('formatPath', () => {
  test('default', () => {
    expect(formatPath(['networks', 0, 'chainId'])).toBe('networks[0].chainId')
  })

  test('args: root, odd keys', () => {
    expect(formatPath([])).toBe('(root)')
    expect(formatPath([0])).toBe('[0]')
    expect(formatPath(['a b', 'c'])).toBe('["a b"].c')
  })
})

describe('suggestKey', () => {
  test('default', () => {
    expect(suggestKey('rpcURL', ['name', 'rpcUrl'])).toBe('rpcUrl')
  })

  test('args: near misses and strangers', () => {
    expect(suggestKey('chainID', ['chainId', 'name'])).toBe('chainId')
    expect(suggestKey('fromBlok', ['fromBlock', 'toBlock'])).toBe('fromBlock')
    expect(suggestKey('confirmation', ['confirmations'])).toBe('confirmations')
    expect(suggestKey('colour', ['name', 'rpcUrl'])).toBeUndefined()
  })
})
