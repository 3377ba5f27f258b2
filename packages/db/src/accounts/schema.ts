import { sql } from 'drizzle-orm'
import {
  bigint,
  boolean,
  check,
  date,
  foreignKey,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core'
import { bytea } from '../columns.js'

// Accounts: dashboard accounts, API keys, plans, usage, sign-in sessions, emailed tokens and
// request limits. The dashboard and the CLIs write it, the RPC service reads keys and writes usage.
// Nothing here refers to the chain index (chain/schema.ts), nor the reverse. `npm run db:generate`
// reads both files.

/** The plans an API key can be on (the contract's plan names); api_keys.plan is checked against them. */
export const apiKeyPlans = ['core', 'developer', 'team', 'growth', 'custom'] as const
export type ApiKeyPlan = (typeof apiKeyPlans)[number]

/**
 * The plans and their limits (seeded by migration 0003; operators change them with SQL or
 * `uncle-rpc keys set-plan-limits`). A key may override the first three (api_keys.*_limit).
 */
export const plans = pgTable(
  'plans',
  {
    name: text('name').$type<ApiKeyPlan>().primaryKey(),
    /** Requests (batch entries) per second, shared by every RPC process through Redis. */
    requestsPerSecond: integer('requests_per_second').notNull(),
    /** Requests (batch entries) per UTC day. */
    requestsPerDay: bigint('requests_per_day', { mode: 'number' }).notNull(),
    /** Most entries in one batch. */
    maxBatchSize: integer('max_batch_size').notNull(),
    /** Whether keys on the plan may use failover forwarding to a network's partner. */
    failoverAllowed: boolean('failover_allowed').notNull().default(false),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('plans_name_check', sql`${t.name} in ('core', 'developer', 'team', 'growth', 'custom')`),
    check('plans_limits_check', sql`${t.requestsPerSecond} > 0 and ${t.requestsPerDay} > 0 and ${t.maxBatchSize} > 0`),
  ],
)

/**
 * Developer accounts of the dashboard. Keys belong to an account; the account's plan is the plan
 * of the keys made in the dashboard (`accounts set-plan` moves the account and all its keys).
 * Migration 0004 made the operator account (no password: it cannot sign in) for the CLI's keys.
 */
export const accounts = pgTable(
  'accounts',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    /** Lowercased and trimmed. */
    email: text('email').notNull(),
    /** `scrypt$N$r$p$salt$hash` (base64url); null = cannot sign in. */
    passwordHash: text('password_hash'),
    plan: text('plan').$type<ApiKeyPlan>().notNull().default('core'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** A disabled account cannot sign in and its keys are refused as revoked. */
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
    /** Set when the owner opened a verification (or reset) link sent to the email; null = may sign in but not make keys. */
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('accounts_email_key').on(t.email),
    foreignKey({ columns: [t.plan], foreignColumns: [plans.name], name: 'accounts_plan_plans_fk' }),
  ],
)

/** The email of the operator account that holds the keys made with `uncle-rpc keys create`. */
export const operatorEmail = 'operator@uncle-rpc.invalid'

/** Dashboard sign-in sessions, server-side: the cookie carries a random token, only its sha256 is stored. */
export const sessions = pgTable(
  'sessions',
  {
    tokenHash: bytea('token_hash').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** Sent back in the X-CSRF-Token header on every state change. */
    csrfToken: text('csrf_token').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** The absolute end of the session. */
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** The last request seen (written at most once a minute): the session ends after an idle time. */
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('sessions_account_id_idx').on(t.accountId), index('sessions_expires_at_idx').on(t.expiresAt)],
)

/** What an emailed link does: verify the account's address, or reset its password (which verifies it too). */
export const accountTokenPurposes = ['verify', 'reset'] as const
export type AccountTokenPurpose = (typeof accountTokenPurposes)[number]

/**
 * Single-use, expiring tokens sent by email (the link carries the token, only its sha256 is
 * stored); a token is deleted when used.
 */
export const accountTokens = pgTable(
  'account_tokens',
  {
    tokenHash: bytea('token_hash').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    purpose: text('purpose').$type<AccountTokenPurpose>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('account_tokens_account_id_idx').on(t.accountId),
    index('account_tokens_expires_at_idx').on(t.expiresAt),
    check('account_tokens_purpose_check', sql`${t.purpose} in ('verify', 'reset')`),
  ],
)

/**
 * Fixed-window request counters of the dashboard (sign-ups, sign-ins and reset emails per client
 * address, reset emails per email, upgrade requests per account), shared by every dashboard
 * process: a key's `hits` count from `window_start`; a new window starts when that one has passed.
 */
export const requestLimits = pgTable(
  'request_limits',
  {
    key: text('key').primaryKey(),
    windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
    hits: integer('hits').notNull(),
  },
  (t) => [index('request_limits_window_start_idx').on(t.windowStart)],
)

/**
 * Failed dashboard sign-ins, per email (`e:<email>`) and per client address (`a:<address>`), shared
 * by every dashboard process: `locked_until` refuses further attempts until then. Rows are pruned
 * once stale (dashboard's timer).
 */
export const signInFailures = pgTable(
  'sign_in_failures',
  {
    key: text('key').primaryKey(),
    failures: integer('failures').notNull(),
    lastFailure: timestamp('last_failure', { withTimezone: true }).notNull(),
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
  },
  (t) => [index('sign_in_failures_last_failure_idx').on(t.lastFailure)],
)

/** "Upgrade to Growth" / "Contact sales for Custom" from the dashboard; the operator grants with `accounts set-plan`. */
export const upgradeRequests = pgTable(
  'upgrade_requests',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    plan: text('plan').$type<ApiKeyPlan>().notNull(),
    message: text('message'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** Set when the account was moved to the plan asked for (or a higher one). */
    grantedAt: timestamp('granted_at', { withTimezone: true }),
  },
  (t) => [
    index('upgrade_requests_account_id_idx').on(t.accountId),
    check('upgrade_requests_plan_check', sql`${t.plan} in ('growth', 'custom')`),
  ],
)

/** Most entries per kind in a key's allowlists (Infura's limit). */
export const maxAllowlistEntries = 30

/**
 * API keys of the RPC service. Only the sha256 of a key is stored (the key is shown once, when
 * created); `prefix` (its first 8 characters) lets people tell keys apart. Revoked keys stay.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    keyHash: bytea('key_hash').notNull(),
    prefix: text('prefix').notNull(),
    label: text('label'),
    plan: text('plan').$type<ApiKeyPlan>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** Written in batches by the RPC service (about once a minute per key), not per request. */
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    /** Per-key overrides of the plan's limits; null = the plan's. */
    rpsLimit: integer('rps_limit'),
    dailyLimit: bigint('daily_limit', { mode: 'number' }),
    batchLimit: integer('batch_limit'),
    /** Failover forwarding on for every request of the key (only effective if the plan allows it). */
    failover: boolean('failover').notNull().default(false),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    /** Networks the key may call; null = every network. */
    networks: text('networks').array(),
    /** Allowed `Origin`s (empty = any): `https://app.example.com`, `app.example.com`, `*.example.com`. */
    allowedOrigins: text('allowed_origins').array().notNull().default(sql`'{}'::text[]`),
    /** Allowed `User-Agent`s (empty = any): an entry matches when the header contains it. */
    allowedUserAgents: text('allowed_user_agents').array().notNull().default(sql`'{}'::text[]`),
    /** sha256 of the key's secret; set = every request must send it (HTTP Basic, empty user). */
    secretHash: bytea('secret_hash'),
    /** The developer's own caps (dashboard), applied under the plan's limits; null = none. */
    rpsCap: integer('rps_cap'),
    dailyCap: bigint('daily_cap', { mode: 'number' }),
  },
  (t) => [
    uniqueIndex('api_keys_key_hash_key').on(t.keyHash),
    index('api_keys_account_id_idx').on(t.accountId),
    check(
      'api_keys_allowlists_check',
      sql`cardinality(${t.allowedOrigins}) <= 30 and cardinality(${t.allowedUserAgents}) <= 30 and coalesce(cardinality(${t.networks}), 0) <= 30`,
    ),
    check('api_keys_caps_check', sql`coalesce(${t.rpsCap}, 1) > 0 and coalesce(${t.dailyCap}, 1) > 0`),
    // Note: keep in step with apiKeyPlans (a test checks that they agree).
    check('api_keys_plan_check', sql`${t.plan} in ('core', 'developer', 'team', 'growth', 'custom')`),
    check(
      'api_keys_limits_check',
      sql`coalesce(${t.rpsLimit}, 1) > 0 and coalesce(${t.dailyLimit}, 1) > 0 and coalesce(${t.batchLimit}, 1) > 0`,
    ),
    foreignKey({ columns: [t.plan], foreignColumns: [plans.name], name: 'api_keys_plan_plans_fk' }),
  ],
)

/**
 * Requests of a known key refused before they were read (HTTP 401/403, or the WebSocket upgrade
 * refused), one per request or upgrade, by reason. Not in `requests` or `errors`: nothing was
 * answered, nor billed. A request with an unknown or missing key has no key to count it on.
 */
function refusedColumns() {
  return {
    /** 401: the key is revoked. */
    refusedRevoked: bigint('refused_revoked', { mode: 'number' }).notNull().default(0),
    /** 403: the key is not allowed on the request's network. */
    refusedNetwork: bigint('refused_network', { mode: 'number' }).notNull().default(0),
    /** 403: the Origin is missing or not on the key's allowlist. */
    refusedOrigin: bigint('refused_origin', { mode: 'number' }).notNull().default(0),
    /** 403: the User-Agent is missing or not on the key's allowlist. */
    refusedUserAgent: bigint('refused_user_agent', { mode: 'number' }).notNull().default(0),
    /** 403: the key's secret (Basic Authorization) is missing or wrong. */
    refusedSecret: bigint('refused_secret', { mode: 'number' }).notNull().default(0),
  }
}

/**
 * Usage per key per UTC day, added to in batches by every RPC process (upserts every few
 * seconds, not per request). Each batch entry counts as one request.
 */
export const usageDaily = pgTable(
  'usage_daily',
  {
    keyId: integer('key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    /** Calls admitted past the key and its restrictions, rate-limited ones included (refused_* are apart). */
    requests: bigint('requests', { mode: 'number' }).notNull().default(0),
    /** Calls answered with a JSON-RPC error (rate-limited ones included). */
    errors: bigint('errors', { mode: 'number' }).notNull().default(0),
    /** Calls answered by the network's failover partner. */
    forwarded: bigint('forwarded', { mode: 'number' }).notNull().default(0),
    /** Calls refused for the per-second or daily limit (-32005). */
    rateLimited: bigint('rate_limited', { mode: 'number' }).notNull().default(0),
    ...refusedColumns(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.day] })],
)

/**
 * Usage per key, network and UTC hour (the dashboard's hourly and per-network views), written
 * like usage_daily; rows older than 35 days are deleted by the RPC service.
 */
export const usageHourly = pgTable(
  'usage_hourly',
  {
    keyId: integer('key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    network: text('network').notNull(),
    requests: bigint('requests', { mode: 'number' }).notNull().default(0),
    errors: bigint('errors', { mode: 'number' }).notNull().default(0),
    forwarded: bigint('forwarded', { mode: 'number' }).notNull().default(0),
    rateLimited: bigint('rate_limited', { mode: 'number' }).notNull().default(0),
    ...refusedColumns(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.hour, t.network] }), index('usage_hourly_hour_idx').on(t.hour)],
)

/**
 * Calls per key, UTC day, network and JSON-RPC method, written in the same transaction as
 * usage_daily (whose totals are the sums of these rows from the day it was added on). `method` is
 * a method served here, or `(other)` for calls that named none (unknown methods, unparseable
 * bodies, empty or oversized batches): only served names are stored, so the rows stay bounded.
 * Days counted before this table existed have no rows: usage_daily's requests minus these sums
 * are the calls not recorded per method.
 */
export const usageMethods = pgTable(
  'usage_methods',
  {
    keyId: integer('key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    network: text('network').notNull(),
    method: text('method').notNull(),
    /** Calls of this method admitted past the key and its restrictions, rate-limited ones included (as usage_daily.requests). */
    requests: bigint('requests', { mode: 'number' }).notNull().default(0),
    /** Calls of this method refused for the per-second or daily limit (-32005). */
    rateLimited: bigint('rate_limited', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.day, t.network, t.method] })],
)
