import type { KeyRecord, KeyStore } from '@uncle-rpc/accounts'
import type { Hex } from '@uncle-rpc/chain'
import type { Logger } from '@uncle-rpc/config'
import { hashSecret } from '@uncle-rpc/db/accounts'
import { errorResponse, InternalError, ServerError } from '@uncle-rpc/jsonrpc'
import { withDeadline } from '../protection/callDeadline.js'

// Note: the key's record is the accounts module's; re-exported for the server's other files.
export type { KeyRecord, KeyStore }

/**
 * The outcome of checking a key: the key's record, or the HTTP status and JSON-RPC body to refuse
 * with: 401 for a missing, unknown or revoked key; 503 with Retry-After (seconds) when the key
 * cannot be checked now (its lookup failed or missed its deadline).
 */
export type AuthResult =
  | { ok: true; key: KeyRecord }
  | { ok: false; status: 401; body: string; /** The key, when it is known and revoked (usage counts the refusal on it). */ revoked?: KeyRecord }
  | { ok: false; status: 503; body: string; retryAfter: number }

export type Auth = {
  /** Checks the key from the URL; synchronous when the answer is in memory. */
  authenticate(key: string | undefined): AuthResult | Promise<AuthResult>
  /** Reloads every key now (also done every refreshMs). */
  refresh(): Promise<void>
  /** Writes pending last-used times now (also done every touchIntervalMs). */
  flushUsage(): Promise<void>
  stop(): Promise<void>
}

export type CreateAuthParameters = {
  /** Full reload period, which is how fast a revocation or plan change takes effect. Default 5 s. */
  refreshMs?: number | undefined
  /** How long an unknown key is remembered as unknown, so a flood of bad keys spares Postgres. Default 5 s. */
  negativeTtlMs?: number | undefined
  /** Most unknown keys remembered at once (and most known keys remembered as sent). Default 10,000. */
  maxNegativeEntries?: number | undefined
  /** How often last_used_at is written (one statement for all keys used since). Default 60 s. */
  touchIntervalMs?: number | undefined
  /**
   * Longest wait for a key not in memory (each request's own wait; the lookup goes on, bounded by the
   * pool's query timeout): past it, or when the lookup fails, 503 with Retry-After. Default 1 s.
   */
  lookupTimeoutMs?: number | undefined
}

/** Default {@link CreateAuthParameters.lookupTimeoutMs}. */
export const defaultKeyLookupTimeoutMs = 1000

const missingKeyBody = errorResponse('null', new ServerError('project id required in the url'))
const invalidKeyBody = errorResponse('null', new ServerError('invalid project id'))
const missing: AuthResult = { ok: false, status: 401, body: missingKeyBody }
const invalid: AuthResult = { ok: false, status: 401, body: invalidKeyBody }
const uncheckable: AuthResult = {
  ok: false,
  status: 503,
  body: errorResponse('null', new InternalError('the project id cannot be checked right now (database unavailable); retry later')),
  retryAfter: 1,
}
// Note: keys are 32 hex characters; anything far off that shape is refused without a lookup.
const plausibleKey = /^[0-9A-Za-z_-]{1,128}$/

/**
 * API key checks from an in-memory map of key hash → record, reloaded every `refreshMs` and on a
 * miss; unknown keys are negatively cached for `negativeTtlMs`. Usage is recorded in memory and
 * written in batches. Missing key → 401 `-32000 project id required in the url`; unknown or
 * revoked → 401 `-32000 invalid project id` (the contract's table); a key not in memory whose
 * lookup fails or misses `lookupTimeoutMs` → 503 `-32603` with Retry-After, never a false 401.
 */
export function createAuth({ store, logger }: { store: KeyStore; logger: Logger }, parameters: CreateAuthParameters = {}): Auth {
  const {
    refreshMs = 5000,
    negativeTtlMs = 5000,
    maxNegativeEntries = 10_000,
    touchIntervalMs = 60_000,
    lookupTimeoutMs = defaultKeyLookupTimeoutMs,
  } = parameters
  // Invariant: `known` holds every key of the last full reload plus keys found on a miss since.
  let known = new Map<Hex, KeyRecord>()
  // Key as sent → record, for keys found in `known`; cleared on every reload. Spares a sha256 per request.
  const byKey = new Map<string, KeyRecord>()
  // Unknown key hash → time (ms) until which it stays unknown without asking the store.
  const unknown = new Map<Hex, number>()
  // Lookups in flight by key hash: requests for the same key share one (each with its own deadline).
  const pending = new Map<Hex, Promise<AuthResult>>()
  let lookupFailures = 0
  let lastFailureLog = 0
  // Keys used since the last flush.
  let used = new Set<Hex>()

  const accept = (key: KeyRecord): AuthResult => {
    if (key.revoked) return { ok: false, status: 401, body: invalidKeyBody, revoked: key }
    used.add(key.keyHash)
    return { ok: true, key }
  }

  async function miss(keyHash: Hex): Promise<AuthResult> {
    try {
      const key = await store.find(keyHash)
      if (key === null) {
        if (unknown.size >= maxNegativeEntries) unknown.clear()
        unknown.set(keyHash, Date.now() + negativeTtlMs)
        return invalid
      }
      known.set(keyHash, key)
      return accept(key)
    } finally {
      pending.delete(keyHash)
    }
  }

  function authenticate(key: string | undefined): AuthResult | Promise<AuthResult> {
    if (key === undefined || key === '') return missing
    const hit = byKey.get(key)
    if (hit !== undefined) return accept(hit)
    if (!plausibleKey.test(key)) return invalid
    const keyHash = hashSecret(key)
    const record = known.get(keyHash)
    if (record !== undefined) {
      if (byKey.size >= maxNegativeEntries) byKey.clear()
      byKey.set(key, record)
      return accept(record)
    }
    const until = unknown.get(keyHash)
    if (until !== undefined) {
      if (until > Date.now()) return invalid
      unknown.delete(keyHash)
    }
    let lookup = pending.get(keyHash)
    if (lookup === undefined) {
      lookup = miss(keyHash)
      pending.set(keyHash, lookup)
    }
    return withDeadline(lookup, lookupTimeoutMs, 'looking up an API key').catch(cannotCheck)
  }

  function cannotCheck(error: unknown): AuthResult {
    lookupFailures++
    // Note: one line per 10 s at most while the database fails, not one per request.
    const now = Date.now()
    if (now - lastFailureLog >= 10_000) {
      logger.warn({ msg: 'API key lookup failed; answering 503', error: (error as Error).message, failures_since_last_line: lookupFailures })
      lastFailureLog = now
      lookupFailures = 0
    }
    return uncheckable
  }

  // Note: one reload at a time; a hung one (bounded by the pool's query timeout) is joined, not stacked.
  let reloading: Promise<void> | undefined
  async function reload(): Promise<void> {
    const all = await store.all()
    known = new Map(all.map((k) => [k.keyHash, k]))
    byKey.clear()
    unknown.clear()
  }
  function refresh(): Promise<void> {
    reloading ??= reload().finally(() => {
      reloading = undefined
    })
    return reloading
  }

  async function flushUsage(): Promise<void> {
    if (used.size === 0) return
    const batch = [...used]
    used = new Set()
    await store.touch(batch, new Date())
  }

  const refreshTimer = setInterval(() => {
    refresh().catch((error: unknown) => logger.warn({ msg: 'reloading API keys failed', error: (error as Error).message }))
  }, refreshMs)
  const touchTimer = setInterval(() => {
    flushUsage().catch((error: unknown) => logger.warn({ msg: 'recording key usage failed', error: (error as Error).message }))
  }, touchIntervalMs)
  refreshTimer.unref()
  touchTimer.unref()

  return {
    authenticate,
    refresh,
    flushUsage,
    async stop() {
      clearInterval(refreshTimer)
      clearInterval(touchTimer)
      await flushUsage().catch((error: unknown) =>
        logger.warn({ msg: 'recording key usage failed', error: (error as Error).message }),
      )
    },
  }
}
