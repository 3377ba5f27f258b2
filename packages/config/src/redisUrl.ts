import { BaseError } from '@uncle-rpc/errors'

// REDIS_URL, read once: one Redis server (redis://, rediss://, handed to ioredis as written) or a
// primary found through Redis Sentinel (redis+sentinel://, rediss+sentinel://). Pure: no I/O.

/** The port Redis Sentinel listens on unless told otherwise. */
export const defaultSentinelPort = 26379

export type SentinelAddress = { host: string; port: number }

/** Where Redis is: a URL ioredis reads as is, or sentinels that name the current primary. */
export type RedisTarget =
  | { kind: 'server'; url: string }
  | {
      kind: 'sentinel'
      sentinels: readonly SentinelAddress[]
      /** The master name the sentinels monitor (`sentinel monitor <name> …`). */
      masterName: string
      db: number
      /** Credentials of the primary and replicas (the URL's user info). */
      username?: string
      password?: string
      /** Credentials of the sentinels themselves (`?sentinelUsername=…&sentinelPassword=…`). */
      sentinelUsername?: string
      sentinelPassword?: string
      /** rediss+sentinel: TLS to the sentinels and to the primary. */
      tls: boolean
    }

/** A REDIS_URL that cannot be used; the message names the problem and never repeats the URL (it may hold a password). */
export class RedisUrlError extends BaseError {
  constructor(problem: string) {
    super(problem, { name: 'RedisUrlError' })
  }
}

const sentinelQueryKeys = ['sentinelUsername', 'sentinelPassword'] as const

function decode(text: string, what: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    // Note: a lone `%` (or a bad escape) in a password; the message says where.
    throw new RedisUrlError(`${what} has a bad %-escape (write % as %25)`)
  }
}

function parseSentinelAddress(text: string, index: number, count: number): SentinelAddress {
  const which = count === 1 ? 'the sentinel address' : `sentinel address ${index + 1} of ${count}`
  if (text === '') throw new RedisUrlError(`${which} is empty (addresses are separated by single commas)`)
  let host: string
  let portText: string | undefined
  if (text.startsWith('[')) {
    const close = text.indexOf(']')
    if (close === -1) throw new RedisUrlError(`${which} opens an IPv6 address with "[" but does not close it`)
    host = text.slice(1, close)
    const after = text.slice(close + 1)
    if (after !== '' && !after.startsWith(':')) throw new RedisUrlError(`${which} has text after its IPv6 address that is not :port`)
    portText = after === '' ? undefined : after.slice(1)
  } else {
    const colon = text.indexOf(':')
    host = colon === -1 ? text : text.slice(0, colon)
    portText = colon === -1 ? undefined : text.slice(colon + 1)
  }
  if (host === '') throw new RedisUrlError(`${which} has no host`)
  if (/[\s/?#@[\]]/.test(host)) throw new RedisUrlError(`${which} has a character a host name cannot have`)
  if (portText === undefined) return { host, port: defaultSentinelPort }
  if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535)
    throw new RedisUrlError(`${which} has a bad port (expected a number 1-65535)`)
  return { host, port: Number(portText) }
}

function parseSentinelUrl(url: string, tls: boolean): RedisTarget {
  let rest = url.slice(url.indexOf('://') + 3)
  if (rest.includes('#')) throw new RedisUrlError('a redis+sentinel URL takes no #fragment')
  const queryAt = rest.indexOf('?')
  const query = queryAt === -1 ? '' : rest.slice(queryAt + 1)
  rest = queryAt === -1 ? rest : rest.slice(0, queryAt)
  const slash = rest.indexOf('/')
  const authority = slash === -1 ? rest : rest.slice(0, slash)
  const path = slash === -1 ? '' : rest.slice(slash + 1)

  const at = authority.lastIndexOf('@')
  const userInfo = at === -1 ? undefined : authority.slice(0, at)
  const hostList = at === -1 ? authority : authority.slice(at + 1)
  if (hostList === '') throw new RedisUrlError('a redis+sentinel URL needs at least one sentinel host:port')
  const parts = hostList.split(',')
  const sentinels = parts.map((part, i) => parseSentinelAddress(part, i, parts.length))

  const segments = path === '' ? [] : path.split('/')
  if (segments.length === 0 || segments[0] === '')
    throw new RedisUrlError('a redis+sentinel URL needs the master name after the sentinels: …/<master name>[/<db>]')
  if (segments.length > 2) throw new RedisUrlError('a redis+sentinel URL has at most two path parts: /<master name>[/<db>]')
  const masterName = decode(segments[0]!, 'the master name')
  const dbText = segments[1]
  if (dbText !== undefined && !/^\d{1,9}$/.test(dbText)) throw new RedisUrlError('the database number (after the master name) must be a non-negative integer')
  const target: RedisTarget & { kind: 'sentinel' } = { kind: 'sentinel', sentinels, masterName, db: dbText === undefined ? 0 : Number(dbText), tls }

  if (userInfo !== undefined) {
    const colon = userInfo.indexOf(':')
    const username = decode(colon === -1 ? '' : userInfo.slice(0, colon), 'the user name')
    const password = decode(colon === -1 ? userInfo : userInfo.slice(colon + 1), 'the password')
    if (username !== '') target.username = username
    if (password !== '') target.password = password
  }
  for (const pair of query === '' ? [] : query.split('&')) {
    const eq = pair.indexOf('=')
    const key = eq === -1 ? pair : pair.slice(0, eq)
    if (!(sentinelQueryKeys as readonly string[]).includes(key))
      throw new RedisUrlError(`unknown parameter in a redis+sentinel URL (expected ${sentinelQueryKeys.join(' or ')})`)
    const value = decode(eq === -1 ? '' : pair.slice(eq + 1).replaceAll('+', ' '), `the ${key} parameter`)
    if (value !== '') target[key as (typeof sentinelQueryKeys)[number]] = value
  }
  return target
}

/**
 * Reads a REDIS_URL: `redis://[[user]:password@]host[:port][/db]` (or `rediss://`, TLS), or
 * `redis+sentinel://[[user]:password@]host[:port][,host[:port]…]/<master name>[/<db>]` (or
 * `rediss+sentinel://`), whose password is the primary's; sentinels with a password of their own
 * take `?sentinelPassword=…`. A sentinel's port defaults to 26379. Throws {@link RedisUrlError}.
 */
export function parseRedisUrl(url: string): RedisTarget {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase()
  if (scheme === 'redis+sentinel' || scheme === 'rediss+sentinel') return parseSentinelUrl(url, scheme === 'rediss+sentinel')
  if (scheme === 'redis' || scheme === 'rediss') {
    try {
      new URL(url)
    } catch {
      throw new RedisUrlError(`not a valid ${scheme}:// URL`)
    }
    return { kind: 'server', url }
  }
  throw new RedisUrlError('expected a redis://, rediss://, redis+sentinel:// or rediss+sentinel:// URL')
}

/** Where a target points, for messages and logs: host:port or the sentinels and master name, never a password. */
export function describeRedisTarget(target: RedisTarget): string {
  if (target.kind === 'sentinel') {
    const hosts = target.sentinels.map((s) => `${s.host.includes(':') ? `[${s.host}]` : s.host}:${s.port}`).join(',')
    return `master "${target.masterName}" via sentinels ${hosts}`
  }
  const u = new URL(target.url)
  return `${u.hostname}:${u.port || '6379'}`
}
