import { describe, expect, test } from 'vitest'
import { applyLogFormatFlag } from './env.js'
import { formatLogLine } from './prettyLog.js'

describe('formatLogLine', () => {
  const time = new Date(2026, 0, 2, 3, 4, 5).getTime()

  test('default: time, level, component, message, then the other fields as key=value', () => {
    const line = JSON.stringify({ level: 40, time, pid: 7, name: 'rpc', msg: 'database read failed', error: 'connect ECONNREFUSED', failures: 3 })
    expect(formatLogLine(line, { color: false })).toBe('03:04:05 WARN  rpc      database read failed error="connect ECONNREFUSED" failures=3\n')
  })

  test('behavior: colors only when asked; lines that are not JSON pass through', () => {
    expect(formatLogLine(JSON.stringify({ level: 50, time, name: 'x', msg: 'm' }), { color: true })).toContain('\x1b[31mERROR')
    expect(formatLogLine('plain text', { color: true })).toBe('plain text\n')
  })
})

describe('applyLogFormatFlag', () => {
  test('args: takes the flag out, anywhere before --', () => {
    expect(applyLogFormatFlag(['rpc', '--log-format', 'json', '--port', '1'])).toEqual(['rpc', '--port', '1'])
    expect(applyLogFormatFlag(['--log-format=pretty', 'status'])).toEqual(['status'])
  })

  test('error: an unknown format', () => {
    expect(applyLogFormatFlag(['--log-format', 'xml'])).toEqual({ error: '--log-format must be one of auto, json, pretty, got "xml"' })
  })
})
