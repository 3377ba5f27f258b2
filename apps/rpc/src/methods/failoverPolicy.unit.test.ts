import { describe, expect, test } from 'vitest'
import { IndexUnavailableError } from './failoverPolicy.js'

describe('IndexUnavailableError', () => {
  test('default: -32603 with the upgrade hint for plans without failover', () => {
    const error = new IndexUnavailableError('not-allowed')
    expect([error.code, error.shortMessage]).toMatchInlineSnapshot(`
      [
        -32603,
        "the index cannot answer right now (database unavailable or too slow); failover forwarding to a partner provider is available on the Growth and Custom plans (upgrade to Growth, or contact sales for Custom)",
      ]
    `)
  })
})
