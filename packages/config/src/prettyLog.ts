import { writeSync } from 'node:fs'
import type { DestinationStream } from 'pino'

const levelNames: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' }
const levelColors: Record<number, string> = { 10: '90', 20: '36', 30: '32', 40: '33', 50: '31', 60: '35' }
// Fields every line has, shown in the prefix (time, level, name) or not at all (pid, hostname).
const skipped = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg'])

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v)
  return JSON.stringify(v) ?? String(v)
}

/**
 * One pino JSON line as a line for people: `12:03:04 INFO  rpc  rpc listening port=8545 host=…`.
 * Lines that are not JSON objects are passed through as they are.
 */
export function formatLogLine(line: string, { color }: { color: boolean }): string {
  let entry: Record<string, unknown>
  try {
    entry = JSON.parse(line) as Record<string, unknown>
  } catch {
    // Note: not a pino line (nothing else writes here); shown unchanged rather than lost.
    return line.endsWith('\n') ? line : `${line}\n`
  }
  const level = typeof entry.level === 'number' ? entry.level : 30
  const time = new Date(typeof entry.time === 'number' ? entry.time : Date.now()).toTimeString().slice(0, 8)
  const name = (levelNames[level] ?? String(level)).padEnd(5)
  const tag = color ? `\x1b[${levelColors[level] ?? '0'}m${name}\x1b[0m` : name
  const fields = Object.entries(entry)
    .filter(([k]) => !skipped.has(k))
    .map(([k, v]) => `${k}=${value(v)}`)
  const component = typeof entry.name === 'string' ? `${entry.name.padEnd(8)} ` : ''
  const dim = (text: string) => (color && text !== '' ? `\x1b[2m${text}\x1b[0m` : text)
  return `${dim(time)} ${tag} ${component}${String(entry.msg ?? '')}${fields.length > 0 ? ' ' + dim(fields.join(' ')) : ''}\n`
}

/** A pino destination writing readable lines (formatLogLine) synchronously to a file descriptor. */
export function prettyDestination({ fd, color }: { fd: number; color: boolean }): DestinationStream {
  return {
    write(line: string) {
      writeSync(fd, formatLogLine(line, { color }))
    },
  }
}
