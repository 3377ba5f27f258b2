import { createHash } from 'node:crypto'
import { expect, test } from 'vitest'
import { hashSecret, secretDigest } from './hashSecret.js'

test('default: the stored form is 0x and the sha256 in lowercase hex (the rows already stored)', () => {
  expect(hashSecret('abc')).toBe('0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  expect(hashSecret('')).toBe('0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
})

test('behavior: a secret is hashed as its UTF-8 bytes; the digest is the same hash as bytes', () => {
  const secret = 'pässwörd ✓'
  expect(hashSecret(secret)).toBe(`0x${createHash('sha256').update(Buffer.from(secret, 'utf8')).digest('hex')}`)
  expect(`0x${secretDigest(secret).toString('hex')}`).toBe(hashSecret(secret))
})
