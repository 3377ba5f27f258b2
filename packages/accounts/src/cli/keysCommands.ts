import type { Db } from '@uncle-rpc/db'
import {
  addUsageCounts,
  type ApiKeyRow,
  createApiKey,
  hashSecret,
  isApiKeyPlan,
  listApiKeys,
  listPlans,
  listMethodUsage,
  listUsage,
  type MethodUsageRow,
  type PlanRow,
  revokeApiKey,
  setApiKeyFailover,
  setApiKeyLimits,
  setApiKeyPlan,
  updatePlan,
  usageCounters,
  type UsageCounts,
  type UsageRow,
  zeroUsageCounts,
} from '@uncle-rpc/db/accounts'
import { endpointUrls } from '@uncle-rpc/config'

/** The flags of `uncle-rpc keys` as parseArgs gives them. */
export type KeysFlags = {
  plan?: string
  label?: string
  rps?: string
  daily?: string
  batch?: string
  failover?: string
  days?: string
  config?: string
  'by-method'?: boolean
}

/** A network of the config, for the addresses `create` prints (those with a publicUrl). */
export type KeysNetwork = Readonly<{ name: string; publicUrl?: string | undefined }>

/** Bad usage or an unknown key (exit code 2), with the message for stderr. */
export type KeysUsageError = { usageError: string }

const plansList = 'core|developer|team|growth|custom'
const time = (date: Date | null) => (date === null ? '-' : date.toISOString().replace(/\.\d{3}Z$/, 'Z'))
const tsv = (lines: readonly (readonly (string | number)[])[]) => lines.map((cells) => cells.join('\t')).join('\n') + '\n'
const short = (key: string) => `${key.slice(0, 8)}…`
/** A usage counter as its column is named (rateLimited → rate_limited). */
const columnName = (counter: string) => counter.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

/** A limit flag: a positive integer, `plan` (null: back to the plan's value when `clearable`), or undefined when absent. */
function limit(name: string, text: string | undefined, clearable: boolean): number | null | undefined | KeysUsageError {
  if (text === undefined) return undefined
  if (clearable && text === 'plan') return null
  const value = Number(text)
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1)
    return { usageError: `--${name} must be a positive integer${clearable ? ' or "plan"' : ''}, got "${text}"` }
  return value
}

function onOff(name: string, text: string | undefined): boolean | undefined | KeysUsageError {
  if (text === undefined) return undefined
  if (text === 'on' || text === 'off') return text === 'on'
  return { usageError: `${name} must be on or off, got "${text}"` }
}

const isError = (value: unknown): value is KeysUsageError => typeof value === 'object' && value !== null && 'usageError' in value

function limitFlags(values: KeysFlags, clearable: boolean) {
  return { rps: limit('rps', values.rps, clearable), daily: limit('daily', values.daily, clearable), batch: limit('batch', values.batch, clearable) }
}

/** The method of the calls of a day that usage_methods lacks: counted before usage was kept per method. */
const notRecordedMethod = '(not recorded)'

/**
 * `keys usage --by-method`: a line per day and method (newest day first), the calls usage_daily
 * has beyond them as notRecordedMethod, then a total per method.
 */
function methodUsageLines(days: readonly UsageRow[], methods: readonly MethodUsageRow[]): (string | number)[][] {
  const lines: (string | number)[][] = [['day', 'method', 'requests', 'rate_limited']]
  const totals = new Map<string, { requests: number; rateLimited: number }>()
  const add = (day: string, method: string, requests: number, rateLimited: number) => {
    lines.push([day, method, requests, rateLimited])
    const total = totals.get(method) ?? { requests: 0, rateLimited: 0 }
    total.requests += requests
    total.rateLimited += rateLimited
    totals.set(method, total)
  }
  for (const day of days) {
    const ofDay = methods.filter((m) => m.day === day.day)
    for (const m of ofDay) add(day.day, m.method, m.requests, m.rateLimited)
    const requests = day.requests - ofDay.reduce((n, m) => n + m.requests, 0)
    const rateLimited = day.rateLimited - ofDay.reduce((n, m) => n + m.rateLimited, 0)
    if (requests > 0) add(day.day, notRecordedMethod, requests, Math.max(0, rateLimited))
  }
  for (const [method, total] of totals) lines.push(['total', method, total.requests, total.rateLimited])
  return lines
}

function keyTable(rows: readonly ApiKeyRow[], plans: readonly PlanRow[]): string {
  const byName = new Map(plans.map((p) => [p.name, p]))
  // Note: the limits in force; a trailing * marks the key's own override of its plan's value.
  const effective = (own: number | null, plan: number | undefined) => (own === null ? String(plan ?? '-') : `${own}*`)
  const lines: (string | number)[][] = [['prefix', 'label', 'plan', 'created', 'last_used', 'revoked', 'rps', 'daily', 'batch', 'failover']]
  for (const k of rows) {
    const plan = byName.get(k.plan)
    const failover = plan?.failoverAllowed ? (k.failover ? 'on' : 'off') : k.failover ? 'on (plan: not allowed)' : 'not allowed'
    lines.push([
      k.prefix,
      k.label ?? '-',
      k.plan,
      time(k.createdAt),
      time(k.lastUsedAt),
      time(k.revokedAt),
      effective(k.rpsLimit, plan?.requestsPerSecond),
      effective(k.dailyLimit, plan?.requestsPerDay),
      effective(k.batchLimit, plan?.maxBatchSize),
      failover,
    ])
  }
  return tsv(lines)
}

function planTable(plans: readonly PlanRow[]): string {
  return tsv([
    ['plan', 'requests_per_second', 'requests_per_day', 'max_batch_size', 'failover_allowed', 'updated'],
    ...plans.map((p) => [p.name, p.requestsPerSecond, p.requestsPerDay, p.maxBatchSize, p.failoverAllowed ? 'yes' : 'no', time(p.updatedAt)]),
  ])
}

/** Runs one `uncle-rpc keys` command; the exit code, or a usage error (exit code 2). */
export async function keysCommand(db: Db, name: string, args: string[], values: KeysFlags, networks: readonly KeysNetwork[] = []): Promise<number | KeysUsageError> {
  const write = (text: string) => process.stdout.write(text)
  if (name === 'create') {
    if (args.length > 0) return { usageError: `create takes no positional arguments, got "${args[0]}"` }
    if (values.plan === undefined) return { usageError: `create needs --plan <${plansList}>` }
    if (!isApiKeyPlan(values.plan)) return { usageError: `unknown plan "${values.plan}": expected one of ${plansList.replaceAll('|', ', ')}` }
    const { rps, daily, batch } = limitFlags(values, false)
    const failover = onOff('--failover', values.failover)
    for (const flag of [rps, daily, batch, failover]) if (isError(flag)) return flag
    const { key, row } = await createApiKey(db, {
      plan: values.plan,
      label: values.label,
      rpsLimit: rps as number | undefined,
      dailyLimit: daily as number | undefined,
      batchLimit: batch as number | undefined,
      failover: failover as boolean | undefined,
    })
    // Note: the addresses users call, from the networks config's publicUrl; the key stays alone on the last line.
    const addresses = networks.flatMap((n) => {
      if (n.publicUrl === undefined) return []
      const { http, ws } = endpointUrls(n.publicUrl, key)
      return [`  ${n.name}  ${http}  ${ws}\n`]
    })
    write(`created a ${row.plan} key${row.label ? ` "${row.label}"` : ''} (prefix ${row.prefix}); it is shown only once:\n${addresses.join('')}${key}\n`)
    return 0
  }
  if (name === 'list' || name === 'plans') {
    if (args.length > 0) return { usageError: `${name} takes no arguments` }
    const plans = await listPlans(db)
    write(name === 'plans' ? planTable(plans) : keyTable(await listApiKeys(db), plans))
    return 0
  }
  if (name === 'revoke') {
    if (args.length !== 1) return { usageError: 'revoke takes one key' }
    if (!(await revokeApiKey(db, { keyHash: hashSecret(args[0]!) }))) return { usageError: 'no such key' }
    write(`revoked key ${short(args[0]!)}\n`)
    return 0
  }
  if (name === 'set-plan') {
    const [key, plan] = args
    if (args.length !== 2 || key === undefined || plan === undefined || !isApiKeyPlan(plan))
      return { usageError: `set-plan takes a key and one of ${plansList}` }
    if (!(await setApiKeyPlan(db, { keyHash: hashSecret(key), plan }))) return { usageError: 'no such key' }
    write(`key ${short(key)} is now on the ${plan} plan\n`)
    return 0
  }
  if (name === 'set-limits') {
    if (args.length !== 1) return { usageError: 'set-limits takes one key and --rps/--daily/--batch <n|plan>' }
    const { rps, daily, batch } = limitFlags(values, true)
    for (const flag of [rps, daily, batch]) if (isError(flag)) return flag
    if (rps === undefined && daily === undefined && batch === undefined) return { usageError: 'set-limits needs --rps, --daily or --batch' }
    const changed = await setApiKeyLimits(db, {
      keyHash: hashSecret(args[0]!),
      rpsLimit: rps as number | null | undefined,
      dailyLimit: daily as number | null | undefined,
      batchLimit: batch as number | null | undefined,
    })
    if (!changed) return { usageError: 'no such key' }
    const shown = (label: string, value: unknown) => (value === undefined ? [] : [`${label} ${value === null ? "the plan's" : value}`])
    write(`key ${short(args[0]!)}: ${[...shown('rps', rps), ...shown('daily', daily), ...shown('batch', batch)].join(', ')} (servers reload within 5 s)\n`)
    return 0
  }
  if (name === 'set-failover') {
    const failover = onOff('set-failover', args[1])
    if (args.length !== 2 || failover === undefined || isError(failover)) return { usageError: 'set-failover takes a key and on|off' }
    if (!(await setApiKeyFailover(db, { keyHash: hashSecret(args[0]!), failover }))) return { usageError: 'no such key' }
    write(`key ${short(args[0]!)}: failover ${failover ? 'on (effective on plans that allow it: growth, custom)' : 'off'}\n`)
    return 0
  }
  if (name === 'set-plan-limits') {
    const [plan] = args
    if (args.length !== 1 || plan === undefined || !isApiKeyPlan(plan)) return { usageError: `set-plan-limits takes one of ${plansList}` }
    const { rps, daily, batch } = limitFlags(values, false)
    const failover = onOff('--failover', values.failover)
    for (const flag of [rps, daily, batch, failover]) if (isError(flag)) return flag
    if ([rps, daily, batch, failover].every((v) => v === undefined)) return { usageError: 'set-plan-limits needs --rps, --daily, --batch or --failover' }
    const row = await updatePlan(db, {
      name: plan,
      requestsPerSecond: rps as number | undefined,
      requestsPerDay: daily as number | undefined,
      maxBatchSize: batch as number | undefined,
      failoverAllowed: failover as boolean | undefined,
    })
    if (row === null) return { usageError: `plan ${plan} is missing from the plans table (run uncle-rpc migrate)` }
    write(planTable([row]))
    return 0
  }
  if (name === 'usage') {
    if (args.length !== 1) return { usageError: 'usage takes one key [--days n] [--by-method]' }
    const days = limit('days', values.days, false) ?? 7
    if (isError(days)) return days
    const rows = await listUsage(db, { keyHash: hashSecret(args[0]!), days: days as number })
    if (rows === null) return { usageError: 'no such key' }
    if (values['by-method'] === true) {
      const methods = (await listMethodUsage(db, { keyHash: hashSecret(args[0]!), days: days as number })) ?? []
      write(tsv(methodUsageLines(rows, methods)))
      return 0
    }
    const total = zeroUsageCounts()
    for (const r of rows) addUsageCounts(total, r)
    const counts = (c: UsageCounts) => usageCounters.map((counter) => c[counter])
    write(tsv([['day', ...usageCounters.map(columnName)], ...rows.map((r) => [r.day, ...counts(r)]), ['total', ...counts(total)]]))
    return 0
  }
  return { usageError: `unknown command "${name}"` }
}
