import { hashSecret } from '@uncle-rpc/db/accounts'
import { expect, test } from 'vitest'
import { accessAllowed, basicPassword, compileKeyAccess } from './keyAccess.js'
import { newKeySecret } from './keySecret.js'

test('default: 32 base64url characters, stored as their hash, sent as Basic with an empty user', () => {
  const { secret, secretHash, authorization } = newKeySecret()
  expect(secret).toMatch(/^[A-Za-z0-9_-]{32}$/)
  expect(secretHash).toBe(hashSecret(secret))
  expect(authorization).toBe(`Basic ${Buffer.from(`:${secret}`).toString('base64')}`)
  expect(basicPassword(authorization)).toBe(secret)
  expect(newKeySecret().secret).not.toBe(secret)
})

test('behavior: a key that requires the secret accepts its header and refuses another secret\'s', () => {
  const key = newKeySecret()
  const access = compileKeyAccess({ networks: null, allowedOrigins: [], allowedUserAgents: [], secretHash: key.secretHash })!
  const request = { network: 'mainnet', origin: undefined, userAgent: undefined }
  expect(accessAllowed(access, { ...request, authorization: key.authorization })).toBe(true)
  expect(accessAllowed(access, { ...request, authorization: newKeySecret().authorization })).toBe(false)
})
