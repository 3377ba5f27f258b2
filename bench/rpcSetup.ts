import { randomBytes } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDb, migrateDatabase } from '@uncle-rpc/db'
import { createApiKey } from '@uncle-rpc/db/accounts'
import pg from 'pg'
import { type DerivedUncle, derivedUncles, expectedResultJson, seedMainnetUncles } from '@uncle-rpc/db/testing'

// What the RPC benches serve: a database of their own holding the real mainnet uncles of blocks
// 0..8191, a key with limits far above any load, a networks file, and files of request bodies.

export type BenchDatabase = {
  url: string
  database: ReturnType<typeof createDb>
  /** A key with limits far above any load (the rate limiter runs, never refuses). */
  key: string
  limits: { plan: 'core' | 'custom'; rpsLimit: number; dailyLimit: number; batchLimit: number }
  /** networks.json for `uncle-rpc rpc --config`: mainnet, chain id 1. */
  config: string
  dir: string
  /** Writes `lines` to a file in the bench's temporary folder; returns its path. */
  file: (name: string, lines: readonly string[]) => string
  uncles: DerivedUncle[]
  /** One eth_getUncleByBlockHashAndIndex request body. */
  call: (id: number, hash: string, index: string) => string
  /** Bodies: every known uncle (random.txt), the first one only (one.txt), 5,000 unknown hashes (unknown.txt). */
  randomFile: string
  oneFile: string
  unknownFile: string
  /** Our exact answer to one.txt's request. */
  oneAnswer: string
  drop: () => Promise<void>
}

/** `name`: in the database's name (uncle_rpc_bench_<name>_<pid>); `plan`: the key's plan (core: no failover). */
export async function createBenchDatabase({ name, plan = 'core' }: { name?: string; plan?: 'core' | 'custom' } = {}): Promise<BenchDatabase> {
  const base = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres')
  const url = new URL(base)
  url.pathname = `/uncle_rpc_bench_${name === undefined ? '' : `${name}_`}${process.pid}`
  await migrateDatabase({ url: url.toString() })
  const database = createDb({ url: url.toString(), max: 2 })
  await seedMainnetUncles(database.db)
  // Note: the fresh tables' autovacuum and the seed's checkpoint would otherwise run during the first rows.
  await database.pool.query('vacuum analyze')
  await database.pool.query('checkpoint')
  const limits = { plan, rpsLimit: 1_000_000_000, dailyLimit: 1_000_000_000_000, batchLimit: 1000 }
  const { key } = await createApiKey(database.db, { ...limits, label: 'bench' })
  const dir = mkdtempSync(join(tmpdir(), 'uncle-rpc-bench-'))
  const file = (name: string, lines: readonly string[]) => {
    const path = join(dir, name)
    writeFileSync(path, `${lines.join('\n')}\n`)
    return path
  }
  const config = file('networks.json', [JSON.stringify({ networks: [{ name: 'mainnet', chainId: 1, rpcUrl: 'http://127.0.0.1:1', confirmations: 0 }] })])
  const uncles = derivedUncles()
  const call = (id: number, hash: string, index: string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_getUncleByBlockHashAndIndex', params: [hash, index] })
  const first = uncles[0]!
  return {
    url: url.toString(),
    database,
    key,
    limits,
    config,
    dir,
    file,
    uncles,
    call,
    randomFile: file('random.txt', uncles.map((u, i) => call(i, u.blockHash, u.index))),
    oneFile: file('one.txt', [call(0, first.blockHash, first.index)]),
    // Note: distinct unknown hashes: no two concurrent requests share a lookup.
    unknownFile: file('unknown.txt', Array.from({ length: 5000 }, (_, i) => call(i, `0x${randomBytes(32).toString('hex')}`, '0x0'))),
    oneAnswer: `{"jsonrpc":"2.0","id":0,"result":${expectedResultJson(first.result)}}`,
    drop: async () => {
      await database.close()
      const admin = new pg.Client({ connectionString: base.toString() })
      await admin.connect()
      await admin.query(`drop database if exists ${pg.escapeIdentifier(url.pathname.slice(1))} with (force)`)
      await admin.end()
    },
  }
}
