import { z } from 'zod'
import { ConfigError, formatIssues } from './issues.js'
import { parseRedisUrl, RedisUrlError } from './redisUrl.js'

// The one place process.env is interpreted: apps call parseEnv(process.env) once in main.

/** pino's level names, `silent` included. */
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof logLevels)[number]

/** How logs are written: JSON lines, readable lines, or `auto` (readable on a terminal). */
export const logFormats = ['auto', 'json', 'pretty'] as const
export type LogFormat = (typeof logFormats)[number]

function urlWithScheme(schemes: readonly string[]) {
  const expected = `expected a ${schemes.map((s) => `${s}//`).join(' or ')} URL`
  return z.string().refine((value) => {
    try {
      return schemes.includes(new URL(value).protocol)
    } catch {
      // Note: an unparseable URL is simply invalid; the refinement reports it.
      return false
    }
  }, expected)
}

/** `postgres://[user@]host1[:port],host2[:port]/db`: libpq's multi-host form, which node-postgres does not read. */
export function isMultiHostPostgresUrl(value: string): boolean {
  return /^postgres(?:ql)?:\/\/(?:[^@/?#]*@)?[^/?#]*,/.test(value.trim())
}

export const multiHostPostgresMessage =
  'several hosts in one URL (host1,host2, as libpq reads it) are not supported: give one address that always leads to the primary (a virtual IP, HAProxy checking Patroni\'s REST API, a managed service\'s endpoint, or PgBouncer in front of it), and replicas one URL each in DATABASE_READ_URL; see docs/postgres.md'

const postgresUrl = z.string().superRefine((value, ctx) => {
  if (isMultiHostPostgresUrl(value)) ctx.addIssue({ code: 'custom', message: multiHostPostgresMessage })
  else if (!urlWithScheme(['postgres:', 'postgresql:']).safeParse(value).success)
    ctx.addIssue({ code: 'custom', message: 'expected a postgres:// or postgresql:// URL' })
})

const redisUrl = z.string().superRefine((value, ctx) => {
  try {
    parseRedisUrl(value)
  } catch (error) {
    if (!(error instanceof RedisUrlError)) throw error
    ctx.addIssue({ code: 'custom', message: error.shortMessage })
  }
})

// Note: an empty variable (`DATABASE_URL= uncle-rpc …`, or `${X:-}` in compose files) counts as unset.
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value)

const envSchema = z.object({
  DATABASE_URL: z.preprocess(
    unsetIfEmpty,
    postgresUrl.default('postgres://postgres:postgres@127.0.0.1:5432/uncle_rpc'),
  ),
  DATABASE_LISTEN_URL: z.preprocess(unsetIfEmpty, urlWithScheme(['postgres:', 'postgresql:']).optional()),
  DATABASE_READ_URL: z.preprocess(
    // Note: split only where a new URL starts, so a multi-host URL stays whole and gets its own error.
    (value) => (typeof value === 'string' && value.trim() !== '' ? value.split(/,(?=\s*postgres(?:ql)?:\/\/)/).map((u) => u.trim()) : undefined),
    z.array(postgresUrl).default([]),
  ),
  REDIS_URL: z.preprocess(unsetIfEmpty, redisUrl.default('redis://127.0.0.1:6379')),
  UNCLE_RPC_CONFIG: z.preprocess(unsetIfEmpty, z.string().optional()),
  SMTP_URL: z.preprocess(unsetIfEmpty, urlWithScheme(['smtp:', 'smtps:']).optional()),
  LOG_LEVEL: z.preprocess(unsetIfEmpty, z.enum(logLevels, { error: `expected one of ${logLevels.join(', ')}` }).default('info')),
  LOG_FORMAT: z.preprocess(unsetIfEmpty, z.enum(logFormats, { error: `expected one of ${logFormats.join(', ')}` }).default('auto')),
})

/** The process environment uncle-rpc reads, validated, with defaults applied. */
export type Env = Readonly<{
  /** Postgres connection string. Default `postgres://postgres:postgres@127.0.0.1:5432/uncle_rpc`. */
  DATABASE_URL: string
  /**
   * The primary for the RPC's null filter, which LISTENs and so needs a connection of its own for
   * the session: set it when DATABASE_URL is a pooler in transaction mode (PgBouncer), to the
   * primary directly or a session-mode pool. Default DATABASE_URL.
   */
  DATABASE_LISTEN_URL?: string
  /** Read replicas of DATABASE_URL (comma-separated in the variable); the RPC reads uncles and blocks from them. Default none. */
  DATABASE_READ_URL: readonly string[]
  /**
   * Redis for the job queues, the head lease and rate limits: `redis://` / `rediss://` (one server) or
   * `redis+sentinel://[:password@]host:port[,host:port…]/<master name>[/<db>]` (Sentinel; see
   * parseRedisUrl). Default `redis://127.0.0.1:6379`.
   */
  REDIS_URL: string
  /** Path of the networks config file (JSON), if set. */
  UNCLE_RPC_CONFIG?: string
  /** Where the dashboard sends email (`smtp://user:pass@host:587`, `smtps://…:465`); unset = the messages are written to the log. */
  SMTP_URL?: string
  /** Default `info`. */
  LOG_LEVEL: LogLevel
  /** Default `auto`: readable lines when stderr is a terminal, JSON lines otherwise. */
  LOG_FORMAT: LogFormat
}>

/**
 * Takes the global `--log-format <json|pretty|auto>` flag out of a command line and records it
 * as LOG_FORMAT, so the command and the processes it starts log that way. Returns the other
 * arguments, or a message for a bad value.
 */
export function applyLogFormatFlag(argv: readonly string[]): string[] | { error: string } {
  const rest: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      rest.push(...argv.slice(i))
      break
    }
    const inline = arg.startsWith('--log-format=') ? arg.slice('--log-format='.length) : undefined
    if (arg !== '--log-format' && inline === undefined) {
      rest.push(arg)
      continue
    }
    const format = inline ?? argv[++i]
    if (!(logFormats as readonly (string | undefined)[]).includes(format))
      return { error: `--log-format must be one of ${logFormats.join(', ')}, got "${format ?? ''}"` }
    process.env.LOG_FORMAT = format
  }
  return rest
}

/**
 * Validates the environment once, at startup, and returns a frozen {@link Env}.
 * Throws {@link ConfigError} naming each bad variable (values are not echoed: URLs may hold passwords).
 */
export function parseEnv(env: NodeJS.ProcessEnv): Env {
  const result = envSchema.safeParse(env)
  if (!result.success) throw new ConfigError({ source: 'the environment', problems: formatIssues(result.error.issues) })
  const { UNCLE_RPC_CONFIG, SMTP_URL, DATABASE_LISTEN_URL, ...rest } = result.data
  return Object.freeze({
    ...rest,
    ...(DATABASE_LISTEN_URL === undefined ? {} : { DATABASE_LISTEN_URL }),
    ...(UNCLE_RPC_CONFIG === undefined ? {} : { UNCLE_RPC_CONFIG }),
    ...(SMTP_URL === undefined ? {} : { SMTP_URL }),
  })
}
