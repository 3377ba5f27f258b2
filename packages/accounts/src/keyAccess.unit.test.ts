import { createHash } from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { accessAllowed, basicPassword, compileKeyAccess, type KeyAccessSettings } from './keyAccess.js'

const none: KeyAccessSettings = { networks: null, allowedOrigins: [], allowedUserAgents: [], secretHash: null }
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
const request = { network: 'mainnet', origin: undefined, userAgent: undefined, authorization: undefined }

describe('key access', () => {
  test('default: a key without restrictions compiles to nothing (no checks on the hot path)', () => {
    expect(compileKeyAccess(none)).toBeUndefined()
    expect(compileKeyAccess({ ...none, networks: [] })).toBeUndefined()
  })

  test('behavior: origins match exactly, by host with any scheme, or by *. wildcard; a missing Origin is refused', () => {
    const access = compileKeyAccess({ ...none, allowedOrigins: ['https://App.example.com/', 'localhost:3000', '*.dapp.io'] })!
    const allowed = (origin: string | undefined) => accessAllowed(access, { ...request, origin })
    expect(allowed('https://app.example.com')).toBe(true)
    expect(allowed('http://app.example.com')).toBe(false)
    expect(allowed('http://localhost:3000')).toBe(true)
    expect(allowed('http://localhost:3001')).toBe(false)
    expect(allowed('https://x.dapp.io')).toBe(true)
    expect(allowed('https://a.b.dapp.io:8443')).toBe(true)
    expect(allowed('https://dapp.io')).toBe(false)
    expect(allowed('https://evildapp.io')).toBe(false)
    expect(allowed(undefined)).toBe(false)
  })

  test('behavior: a User-Agent entry matches when the header contains it (any case)', () => {
    const access = compileKeyAccess({ ...none, allowedUserAgents: ['com.example.wallet', 'MyBot/'] })!
    expect(accessAllowed(access, { ...request, userAgent: 'Mozilla/5.0 com.example.wallet/2.1' })).toBe(true)
    expect(accessAllowed(access, { ...request, userAgent: 'mybot/1.0' })).toBe(true)
    expect(accessAllowed(access, { ...request, userAgent: 'curl/8.0' })).toBe(false)
    expect(accessAllowed(access, request)).toBe(false)
  })

  test('behavior: a required secret comes as HTTP Basic with any user; wrong, empty or missing is refused', () => {
    const secretHash = `0x${createHash('sha256').update('s3cret').digest('hex')}` as const
    const access = compileKeyAccess({ ...none, secretHash })!
    expect(accessAllowed(access, { ...request, authorization: basic('', 's3cret') })).toBe(true)
    // The second time the header is remembered (no sha256).
    expect(accessAllowed(access, { ...request, authorization: basic('', 's3cret') })).toBe(true)
    expect(access.goodAuthorizations.size).toBe(1)
    expect(accessAllowed(access, { ...request, authorization: basic('', 'wrong') })).toBe(false)
    expect(accessAllowed(access, { ...request, authorization: basic('', '') })).toBe(false)
    expect(accessAllowed(access, { ...request, authorization: 'Bearer s3cret' })).toBe(false)
    expect(accessAllowed(access, request)).toBe(false)
    expect(basicPassword(basic('user', 'a:b'))).toBe('a:b')
  })

  test('behavior: kinds AND, entries of one kind OR; networks restrict too', () => {
    const access = compileKeyAccess({ ...none, networks: ['mainnet'], allowedOrigins: ['a.io', 'b.io'], allowedUserAgents: ['ok'] })!
    const both = { ...request, origin: 'https://b.io', userAgent: 'ok/1' }
    expect(accessAllowed(access, both)).toBe(true)
    expect(accessAllowed(access, { ...both, userAgent: 'no' })).toBe(false)
    expect(accessAllowed(access, { ...both, origin: 'https://c.io' })).toBe(false)
    expect(accessAllowed(access, { ...both, network: 'sepolia' })).toBe(false)
  })
})
