import { type DestinationStream, type Logger as PinoLogger, pino } from 'pino'
import { isatty } from 'node:tty'
import type { LogFormat, LogLevel } from './env.js'
import { prettyDestination } from './prettyLog.js'

// Logs on stderr, object first: logger.info({ msg: 'indexed range', network, from: '0' }).
// stdout is left to command output. JSON lines, or readable lines on a terminal (prettyLog.ts).

export type Logger = PinoLogger

export type CreateLoggerParameters = {
  level: LogLevel
  /** Component name, logged as `name` on every line (`indexer`, `rpc`, `cli`…). */
  name: string
  /** Where lines go; default stderr. Tests pass a stream to read them back (always JSON). */
  destination?: DestinationStream
  /** `auto` (default): readable lines when stderr is a terminal, else JSON lines. */
  format?: LogFormat | undefined
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

/**
 * An Error under `error` is logged as an object: its name (`type`), message, stack, own fields
 * and the same for its `cause`, down the chain. Anything else is logged as it is.
 */
function serializeError(value: unknown): unknown {
  return value instanceof Error ? pino.stdSerializers.errWithCause(value) : value
}

/** Whether `format` means readable lines on stderr (`auto`: stderr is a terminal). */
function wantsPrettyLogs(format: LogFormat | undefined): boolean {
  return format === 'pretty' || ((format ?? 'auto') === 'auto' && isatty(2))
}

/**
 * A pino logger writing JSON lines to stderr (or `destination`) — readable lines instead when
 * `format` says so —, with API keys redacted wherever they appear under those names.
 */
export function createLogger({ level, name, destination, format }: CreateLoggerParameters): Logger {
  const pretty = destination === undefined && wantsPrettyLogs(format)
  return pino(
    {
      level,
      name,
      base: { pid: process.pid, name },
      redact: { paths: redactPaths, censor: (value) => (typeof value === 'string' ? redactKey(value) : '[redacted]') },
      serializers: { error: serializeError },
    },
    destination ?? (pretty ? prettyDestination({ fd: 2, color: isatty(2) }) : pino.destination({ dest: 2, sync: true })),
  )
}
