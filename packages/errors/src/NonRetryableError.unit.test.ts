import { expect, test } from 'vitest'
import { BaseError } from './BaseError.js'
import { NonRetryableError } from './NonRetryableError.js'

class FileRefusedError extends NonRetryableError {
  constructor(file: string, cause: unknown) {
    super(`refused ${file}`, { name: 'FileRefusedError', cause, details: 'a checksum differs' })
  }
}

test('default: a subclass is a NonRetryableError and a BaseError, keeps its own name, message and cause', () => {
  const cause = new Error('crc mismatch')
  const error = new FileRefusedError('a.era1', cause)
  expect(error).toBeInstanceOf(NonRetryableError)
  expect(error).toBeInstanceOf(BaseError)
  expect(error).toMatchObject({ name: 'FileRefusedError', shortMessage: 'refused a.era1', cause })
  expect(error.message).toBe('refused a.era1\n\nDetails: a checksum differs')
})

test('default: used directly, its name says what it is; a plain BaseError is not one', () => {
  expect(new NonRetryableError('gone').name).toBe('NonRetryableError')
  expect(new BaseError('maybe later')).not.toBeInstanceOf(NonRetryableError)
})
