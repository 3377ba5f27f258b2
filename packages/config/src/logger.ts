import { type DestinationStream, type Logger as PinoLogger, pino } from 'pino'
import type { LogLevel } from './env.js'

// JSON logs on stderr, object first: logger.info({ msg: 'indexed range', network, from: '0' }).
// stdout is left to command output.

export type Logger = PinoLogger

export type CreateLoggerParameters = {
  level: LogLevel
  /** Component name, logged as `name` on every line (`indexer`, `rpc`, `cli`…). */
  name: string
  /** Where lines go; default stderr. Tests pass a stream to read them back. */
  destination?: DestinationStream
}

/**
 * Shows only a short prefix of an API key (`a1b2…`), so logs can tell keys apart without
 * holding them. Keys shorter than 12 characters show nothing at all.
 */
export function redactKey(apiKey: string): string {
  return apiKey.length < 12 ? '…' : `${apiKey.slice(0, 4)}…`
}

// Note: a second line of defence; code should still log redactKey(key) rather than the key.
const redactPaths = ['apiKey', 'api_key', '*.apiKey', '*.api_key']

/** A pino logger writing JSON lines to stderr (or `destination`), with API keys redacted wherever they appear under those names. */
export function createLogger({ level, name, destination }: CreateLoggerParameters): Logger {
  return pino(
    {
      level,
      name,
      base: { pid: process.pid, name },
      redact: { paths: redactPaths, censor: (value) => (typeof value === 'string' ? redactKey(value) : '[redacted]') },
    },
    destination ?? pino.destination({ dest: 2, sync: true }),
  )
}
