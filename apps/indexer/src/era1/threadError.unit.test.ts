import { BaseError } from '@uncle-rpc/errors'
import { describe, expect, test } from 'vitest'
import { ThreadError, toThreadErrorData } from './threadError.js'

describe('toThreadErrorData / ThreadError', () => {
  test('default: name, message, details, stack and the cause chain survive the round trip as plain data', () => {
    const root = new TypeError('bad byte')
    const middle = new BaseError('header hash mismatch', { name: 'HeaderHashError', details: 'block 7', cause: root })
    const data = toThreadErrorData(middle)
    // Plain data: what postMessage's structured clone carries as is.
    expect(structuredClone(data)).toEqual(data)
    const rebuilt = new ThreadError(structuredClone(data))
    expect([rebuilt.name, rebuilt.shortMessage, rebuilt.details, rebuilt.message, rebuilt.stack]).toEqual([
      'HeaderHashError',
      'header hash mismatch',
      'block 7',
      middle.message,
      middle.stack,
    ])
    const cause = rebuilt.cause as ThreadError
    expect(cause).toBeInstanceOf(ThreadError)
    expect([cause.name, cause.message, cause.stack, cause.cause]).toEqual(['TypeError', 'bad byte', root.stack, undefined])
  })

  test('behavior: a thrown non-error becomes its text; a cause cycle is cut', () => {
    expect(new ThreadError(toThreadErrorData('just text')).message).toBe('just text')
    const a = new Error('a')
    const b = new Error('b', { cause: a })
    a.cause = b
    let depth = 0
    for (let data: ReturnType<typeof toThreadErrorData> | undefined = toThreadErrorData(a); data; data = data.cause) depth++
    expect(depth).toBe(8)
  })
})
