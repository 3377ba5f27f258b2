import { expect, test } from 'vitest'
import { errorForLog } from './errorForLog.js'

test('default: name, code and stack frames down the cause chain, no message anywhere', () => {
  const cause = Object.assign(new Error('duplicate key value: (email)=(dev@example.com), hash $scrypt$secret'), { code: '23505' })
  const error = new Error('Failed query: insert into accounts … params: dev@example.com,$scrypt$secret', { cause })
  const logged = errorForLog(error)
  expect(logged).toMatchObject({
    type: 'Error',
    stack: expect.stringMatching(/^at .*errorForLog\.unit\.test\.ts/),
    cause: { type: 'Error', code: '23505', stack: expect.stringMatching(/^at /) },
  })
  expect(JSON.stringify(logged)).not.toMatch(/example\.com|scrypt|Failed query|duplicate/)
})

test('args: something thrown that is not an Error is logged as its type only', () => {
  expect(errorForLog('dev@example.com')).toBe('string')
  expect(errorForLog(undefined)).toBe('undefined')
})
