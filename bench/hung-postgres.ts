// A hung database under load: a private Postgres frozen with SIGSTOP (postmaster and backends) for
// 12 s under a real `uncle-rpc rpc`, with 300 cached and 50 unknown-hash requests per second sent
// at a fixed rate (open loop). Prints how /ready, a never-seen key, cached answers, unknown hashes
// and the cold path behave during the freeze and after the thaw.
//
//   npx tsx bench/hung-postgres.ts [--repo <checkout>]   (--repo: run another checkout's CLI, e.g. the code before)

import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createDb, migrateDatabase } from '@uncle-rpc/db'
import { createApiKey } from '@uncle-rpc/db/accounts'
import { type CliProcess, requireFixtures, spawnCli, startPostgresServer } from '@uncle-rpc/testing'
import { derivedUncles, mainnetBlocksFixture, mainnetUnclesDerived, seedMainnetUncles } from '@uncle-rpc/db/testing'

const { values } = parseArgs({ options: { repo: { type: 'string' }, 'freeze-s': { type: 'string', default: '12' } } })
const freezeMs = Number(values['freeze-s']) * 1000
requireFixtures(mainnetBlocksFixture, mainnetUnclesDerived)

const call = (hash: string, index: string) => `{"jsonrpc":"2.0","id":1,"method":"eth_getUncleByBlockHashAndIndex","params":["${hash}","${index}"]}`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
type Outcome = { at: number; ms: number; status: number; ok: boolean; headers?: Headers; body?: string }

async function timed(url: string, init: RequestInit = {}, timeoutMs = 60_000): Promise<Outcome> {
  const started = performance.now()
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) })
    const body = await res.text()
    return { at: started, ms: performance.now() - started, status: res.status, ok: res.status === 200 && !body.includes('"error"'), headers: res.headers, body }
  } catch {
    return { at: started, ms: performance.now() - started, status: 0, ok: false }
  }
}

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}

const postgres = await startPostgresServer()
let rpc: CliProcess | undefined
try {
  const url = postgres.url('uncle_rpc')
  await migrateDatabase({ url })
  const seeded = createDb({ url, max: 2 })
  await seedMainnetUncles(seeded.db)
  const { key } = await createApiKey(seeded.db, { plan: 'team' })
  await seeded.close()
  const config = join(tmpdir(), `uncle-rpc-bench-hung-${process.pid}.json`)
  writeFileSync(config, JSON.stringify({ networks: [{ name: 'mainnet', chainId: 1, rpcUrl: 'http://127.0.0.1:9/', confirmations: 0 }] }))
  const args = ['rpc', '--config', config, '--port', '0', '--rate-limits', 'off']
  // Note: with --repo, that checkout's own CLI (spawnCli runs this one's).
  rpc = values.repo
    ? spawnCli(args, { env: { DATABASE_URL: url }, cwd: values.repo, bin: join(values.repo, 'apps/cli/bin/uncle-rpc.js') })
    : spawnCli(args, { env: { DATABASE_URL: url } })
  const base = (await rpc.waitFor(/rpc listening on (http:\/\/\S+?)\/v3\//, 60_000))[1]!
  const endpoint = `${base}/v3/${key}`
  const uncles = derivedUncles()
  const hot = uncles.slice(0, 50)
  const cold = uncles.slice(100)
  const post = (body: string, k = key, timeoutMs?: number) =>
    timed(k === key ? endpoint : `${base}/v3/${k}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }, timeoutMs)
  for (const u of hot) await post(call(u.blockHash, u.index))

  // Open loop: a request every 1000/rate ms, whatever the answers do.
  const results = { cached: [] as Outcome[], unknown: [] as Outcome[] }
  const inFlight: Promise<unknown>[] = []
  let sending = true
  const sender = (rate: number, make: (i: number) => Promise<Outcome>, into: Outcome[]) =>
    (async () => {
      const started = performance.now()
      for (let i = 0; sending; i++) {
        const due = started + (i * 1000) / rate
        const wait = due - performance.now()
        if (wait > 0) await sleep(wait)
        inFlight.push(make(i).then((o) => into.push(o)))
      }
    })()
  const senders = [
    sender(300, (i) => { const u = hot[i % hot.length]!; return post(call(u.blockHash, u.index)) }, results.cached),
    sender(50, () => post(call(`0x${randomBytes(32).toString('hex')}`, '0x0')), results.unknown),
  ]
  await sleep(3000)
  const frozenAt = performance.now()
  postgres.freeze()
  const ready = timed(`${base}/ready`, {}, freezeMs + 10_000)
  await sleep(500)
  const stranger = post(call(hot[0]!.blockHash, hot[0]!.index), randomBytes(16).toString('hex'), freezeMs + 10_000)
  await sleep(freezeMs - 500)
  postgres.thaw()
  const thawedAt = performance.now()
  // The cold path: a known uncle never asked before, every 100 ms until one is answered.
  let coldBackMs = NaN
  for (let i = 0; i < 200; i++) {
    const u = cold[i]!
    const o = await post(call(u.blockHash, u.index), key, 5000)
    if (o.ok && o.body?.includes('"hash":"')) {
      coldBackMs = performance.now() - thawedAt
      break
    }
    await sleep(100)
  }
  await sleep(1000)
  sending = false
  await Promise.all(senders)
  await Promise.all(inFlight)
  const r = await ready
  const s = await stranger
  const during = (o: Outcome) => o.at >= frozenAt && o.at < thawedAt
  const cachedDuring = results.cached.filter(during)
  const unknownDuring = results.unknown.filter(during)
  const readyBody = r.body ?? ''
  const leaks = ['127.0.0.1', String(postgres.port), 'uncle_rpc'].filter((x) => readyBody.includes(x))
  const lines = [
    `code: ${values.repo ?? 'this checkout'}; Postgres frozen ${freezeMs / 1000} s under 300 cached + 50 unknown-hash requests/s`,
    `/ready during the freeze: HTTP ${r.status} after ${r.ms.toFixed(0)} ms; body ${readyBody.slice(0, 160)}; names host/port/database: ${leaks.length === 0 ? 'no' : leaks.join(', ')}`,
    `never-seen key: HTTP ${s.status} after ${s.ms.toFixed(0)} ms; Retry-After: ${s.headers?.get('retry-after') ?? 'none'}`,
    `cached answers during the freeze: ${cachedDuring.filter((o) => o.ok).length} of ${cachedDuring.length} succeeded; p50 ${percentile(cachedDuring.map((o) => o.ms), 50).toFixed(1)} ms, p99 ${percentile(cachedDuring.map((o) => o.ms), 99).toFixed(1)} ms, max ${Math.max(...cachedDuring.map((o) => o.ms)).toFixed(1)} ms`,
    `unknown hashes during the freeze: ${unknownDuring.length} sent, ${unknownDuring.filter((o) => o.status === 200).length} answered with HTTP 200; p99 ${percentile(unknownDuring.map((o) => o.ms), 99).toFixed(0)} ms, max ${Math.max(...unknownDuring.map((o) => o.ms)).toFixed(0)} ms`,
    `cold path answering again ${Number.isNaN(coldBackMs) ? 'not within 20 s' : `${coldBackMs.toFixed(0)} ms`} after the thaw`,
  ]
  process.stdout.write(`${lines.join('\n')}\n`)
} finally {
  postgres.thaw()
  await rpc?.stop()
  await postgres.remove()
}
