import { describe, expect, test } from 'vitest'
import { BaseError } from './BaseError.js'
import { describeError } from './describeError.js'

describe('describeError', () => {
  test('default: the message, then each cause with its name and SQLSTATE', () => {
    const pgError = Object.assign(new Error('unsupported startup parameter: statement_timeout'), { name: 'error', code: '08P01' })
    const wrapper = new Error('Failed query: insert into "networks" ("name") values ($1)', { cause: pgError })
    expect(describeError(new BaseError('could not register network "mainnet"', { cause: wrapper }))).toMatchInlineSnapshot(`
      "could not register network "mainnet"
        caused by: Error: Failed query: insert into "networks" ("name") values ($1)
        caused by: error [08P01]: unsupported startup parameter: statement_timeout"
    `)
  })

  test('behavior: a cause already in the message is named, not repeated; detail and hint are kept; a plain value is shown', () => {
    const cause = Object.assign(new Error('relation "x" does not exist'), { code: '42P01', hint: 'run uncle-rpc migrate' })
    const error = new BaseError('Could not apply migrations', { cause, details: cause.message })
    expect(describeError(error)).toMatchInlineSnapshot(`
      "Could not apply migrations

      Details: relation "x" does not exist
        caused by: Error [42P01] (above)
          hint: run uncle-rpc migrate"
    `)
    expect(describeError('plain')).toBe('plain')
  })
})
