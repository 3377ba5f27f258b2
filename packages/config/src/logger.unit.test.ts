import { Writable } from 'node:stream'
import { describe, expect, test } from 'vitest'
import { createLogger, redactKey } from './logger.js'

function capture() {
  const lines: Record<string, unknown>[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line))
      done()
    },
  })
  return { lines, destination }
}

describe('createLogger', () => {
  test('default', () => {
    const { lines, destination } = capture()
    const logger = createLogger({ level: 'info', name: 'indexer', destination })
    logger.info({ msg: 'indexed range', network: 'mainnet', from: '0' })
    logger.debug({ msg: 'hidden' })
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ level: 30, name: 'indexer', msg: 'indexed range', network: 'mainnet', from: '0' })
    expect(lines[0]).toHaveProperty('time')
  })

  test('behavior: child loggers keep the name', () => {
    const { lines, destination } = capture()
    createLogger({ level: 'debug', name: 'rpc', destination }).child({ request_id: 7 }).debug({ msg: 'x' })
    expect(lines[0]).toMatchObject({ name: 'rpc', request_id: 7, msg: 'x' })
  })

  test('behavior: an Error under `error` is logged with its name, message, stack, fields and cause chain; text stays text', () => {
    const { lines, destination } = capture()
    const logger = createLogger({ level: 'info', name: 'rpc', destination })
    class LookupError extends Error {
      readonly table = 'uncles'
      constructor(cause: unknown) {
        super('lookup failed', { cause })
        this.name = 'LookupError'
      }
    }
    logger.error({ msg: 'internal error', correlation_id: 'ab12cd34', error: new LookupError(new Error('connection terminated')) })
    logger.warn({ msg: 'retrying', error: 'HTTP 503' })
    expect(lines[0]).toMatchObject({
      correlation_id: 'ab12cd34',
      error: {
        type: 'LookupError',
        message: 'lookup failed',
        table: 'uncles',
        stack: expect.stringMatching(/^LookupError: lookup failed\n\s+at /),
        cause: { type: 'Error', message: 'connection terminated', stack: expect.stringContaining('Error: connection terminated') },
      },
    })
    expect(lines[1]).toMatchObject({ error: 'HTTP 503' })
  })

  test('behavior: API keys are redacted under their usual names', () => {
    const { lines, destination } = capture()
    const key = '0123456789abcdef0123456789abcdef'
    createLogger({ level: 'info', name: 'rpc', destination }).info({ msg: 'auth', apiKey: key, request: { api_key: key } })
    expect(JSON.stringify(lines[0])).not.toContain(key)
    expect(lines[0]).toMatchObject({ apiKey: '0123…', request: { api_key: '0123…' } })
  })
})

describe('redactKey', () => {
  test('default', () => {
    expect(redactKey('0123456789abcdef0123456789abcdef')).toBe('0123…')
  })

  test('args: short keys show nothing', () => {
    expect(redactKey('')).toBe('…')
    expect(redactKey('abcdefghijk')).toBe('…')
  })
})
