import { createTcpProxy, type TcpProxy } from '@uncle-rpc/testing'
import { afterEach, expect, test } from 'vitest'
import { createDb, type CreateDbParameters, type CreateDbReturnType } from './client.js'
import { type OpenTestDatabase, useTestDatabase } from './testing.js'

// createDb({ pipeline }) on a real Postgres: several statements in flight on one connection, each
// still bounded by its timeouts, and a hung or cut connection failing what it carries and replaced.

let database: OpenTestDatabase
useTestDatabase({ max: 1 }, (opened) => {
  database = opened
})

const opened: CreateDbReturnType[] = []
const proxies: TcpProxy[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((d) => d.close()))
  await Promise.all(proxies.splice(0).map((p) => p.close()))
})

function open(parameters: Omit<CreateDbParameters, 'url'>, url = database.url): CreateDbReturnType {
  const db = createDb({ url, ...parameters })
  opened.push(db)
  return db
}

/** Backend pids serving `application_name` (how many server connections a pool holds). */
async function backends(name: string): Promise<number[]> {
  const { rows } = await database.db.$client.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [name])
  return rows.map((r) => r.pid)
}

const withName = (url: string, name: string) => {
  const u = new URL(url)
  u.searchParams.set('application_name', name)
  return u.toString()
}

test('behavior: statements in flight on one connection at once, each answered with its own rows, in order', async () => {
  const url = withName(database.url, 'pipelined-order')
  const { pool } = open({ max: 1, pipeline: 8 }, url)
  const finished: number[] = []
  // Note: the first sleeps longest; on one connection the others still come back after it, in the order sent.
  const asked = Array.from({ length: 8 }, (_, i) =>
    pool.query<{ n: number; pid: number }>('select $1::int as n, pg_backend_pid() as pid from pg_sleep($2)', [i, i === 0 ? 0.3 : 0]).then((r) => {
      finished.push(i)
      return r.rows[0]!
    }),
  )
  const rows = await Promise.all(asked)
  expect(rows.map((r) => r.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
  expect(finished).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
  expect(new Set(rows.map((r) => r.pid)).size).toBe(1)
  expect(await backends('pipelined-order')).toHaveLength(1)
})

test('behavior: at most `pipeline` statements per connection, a new connection while all are busy, up to max', async () => {
  const url = withName(database.url, 'pipelined-spread')
  const { pool } = open({ max: 2, pipeline: 3 }, url)
  const rows = await Promise.all(
    Array.from({ length: 9 }, (_, i) => pool.query<{ n: number; pid: number }>('select $1::int as n, pg_backend_pid() as pid from pg_sleep(0.1)', [i]).then((r) => r.rows[0]!)),
  )
  expect(rows.map((r) => r.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8])
  const perConnection = [...rows.reduce((m, r) => m.set(r.pid, (m.get(r.pid) ?? 0) + 1), new Map<number, number>()).values()]
  // 2 connections × 3 in flight: 6 at once, the other 3 waited for room; never more than 2 connections.
  expect(perConnection).toHaveLength(2)
  expect(perConnection.reduce((a, b) => a + b)).toBe(9)
  // The pool's gauges count them (the rpc's metrics read these).
  expect({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }).toEqual({ total: 2, idle: 2, waiting: 0 })
})

test('behavior: a statement cancelled by statement_timeout fails alone; those in flight behind it on its connection are answered', async () => {
  const url = withName(database.url, 'pipelined-statement-timeout')
  const { pool } = open({ max: 1, pipeline: 4, timeouts: { statementTimeoutMs: 200, queryTimeoutMs: 5000 } }, url)
  const slow = pool.query('select pg_sleep(2)').then(
    () => 'answered',
    (error: { code?: string }) => error.code,
  )
  const behind = Array.from({ length: 3 }, (_, i) => pool.query<{ n: number }>('select $1::int as n', [i]).then((r) => r.rows[0]!.n))
  expect(await slow).toBe('57014')
  expect(await Promise.all(behind)).toEqual([0, 1, 2])
  expect(await backends('pipelined-statement-timeout')).toHaveLength(1)
})

test('behavior: a hung connection: every statement in flight on it fails by the query timeout, and the next query gets a new connection', async () => {
  const target = new URL(database.url)
  const proxy = await createTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
  proxies.push(proxy)
  const url = new URL(withName(database.url, 'pipelined-hung'))
  url.hostname = '127.0.0.1'
  url.port = String(proxy.port)
  const { pool } = open({ max: 1, pipeline: 4, timeouts: { statementTimeoutMs: 0, queryTimeoutMs: 300 } }, url.toString())
  const first = (await pool.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid
  proxy.hang()
  const started = performance.now()
  const inFlight = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => pool.query('select $1::int', [i])))
  expect(inFlight.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected'])
  // Note: bounded by the query timeout, not the hang (wide margin for a loaded machine).
  expect(performance.now() - started).toBeLessThan(5000)
  await proxy.restore()
  const again = (await pool.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid
  expect(again).not.toBe(first)
})

test('behavior: a connection cut mid-pipeline fails its statements in flight, not the process; the next query reconnects', async () => {
  const target = new URL(database.url)
  const proxy = await createTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
  proxies.push(proxy)
  const url = new URL(withName(database.url, 'pipelined-cut'))
  url.hostname = '127.0.0.1'
  url.port = String(proxy.port)
  const warnings: object[] = []
  const { pool } = open({ max: 1, pipeline: 4, logger: { info: () => undefined, warn: (o) => warnings.push(o) } }, url.toString())
  await pool.query('select 1')
  const inFlight = Promise.allSettled(Array.from({ length: 4 }, (_, i) => pool.query('select $1::int from pg_sleep(0.5)', [i])))
  await new Promise((r) => setTimeout(r, 100))
  await proxy.cut()
  const settled = await inFlight
  expect(settled.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected'])
  expect(warnings.some((w) => (w as { msg?: string }).msg === 'pipelined database connection failed')).toBe(true)
  await proxy.restore()
  expect((await pool.query<{ n: number }>('select 7 as n')).rows[0]!.n).toBe(7)
})

test('behavior: pool.connect() (transactions) keeps plain connections beside the pipelined ones', async () => {
  const { db } = open({ max: 2, pipeline: 4 })
  const value = await db.transaction(async (tx) => (await tx.execute<{ n: number }>('select 5 as n')).rows[0]!.n)
  expect(value).toBe(5)
})
