import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hashHeader, toRpcUncle } from '@uncle-rpc/chain'
import { migrateDatabase } from '@uncle-rpc/db'
import { getUncle, listNetworks, type TableChecksums, tableChecksums } from '@uncle-rpc/db/chain'
import { type OpenTestDatabase, openTestDatabase } from '@uncle-rpc/db/testing'
import { type CliProcess, describeWithFixtures, fixturePath, readFixtureJsonl, runCli, spawnCli } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'

// Acceptance of the indexer on real mainnet history: the real sample node serving the era1
// file, the real `uncle-rpc indexer` process, Postgres and Redis.

const era1 = 'mainnet-era1/mainnet-00000-5ec1ffb8.era1'
const derived = 'derived/geth_eth_getUncleByBlockHashAndIndex_mainnet_0-8191.jsonl'
type DerivedUncle = { blockHash: `0x${string}`; blockNumber: number; index: `0x${string}`; result: Record<string, unknown> }

async function startNode(extra: string[] = []): Promise<{ node: CliProcess; url: string }> {
  const node = spawnCli(['sample-node', '--port', '0', '--chain', fixturePath(era1), ...extra])
  const match = await node.waitFor(/listening on (http:\/\/\S+)/, 60_000)
  return { node, url: match[1] as string }
}

function writeConfig(url: string, chainId = 1): string {
  const path = join(tmpdir(), `uncle-rpc-indexer-${process.pid}-${Math.random().toString(36).slice(2)}.json`)
  writeFileSync(
    path,
    JSON.stringify({ networks: [{ name: 'mainnet', chainId, rpcUrl: url, fromBlock: 0, toBlock: 8191, confirmations: 0 }] }),
  )
  return path
}

const indexerFlags = ['--range-size', '256', '--lock-duration-ms', '3000']

describeWithFixtures([era1, derived], 'indexer on mainnet 0–8191 (era1 sample node)', () => {
  const databases: OpenTestDatabase[] = []
  const nodes: CliProcess[] = []
  let clean: { url: string }
  // The clean run's checksums: what every other run must end with (computed once, on demand).
  let cleanRun: Promise<{ database: OpenTestDatabase; checksums: TableChecksums }> | undefined

  const newDatabase = async () => {
    const database = await openTestDatabase()
    databases.push(database)
    return database
  }

  const indexClean = () => {
    cleanRun ??= (async () => {
      const database = await newDatabase()
      const result = await runCli(['indexer', '--config', writeConfig(clean.url), '--exit-when-done', ...indexerFlags], {
        env: { DATABASE_URL: database.url },
      })
      expect(result.stderr).not.toMatch(/"level":50/)
      expect(result.code).toBe(0)
      const checksums = await tableChecksums(database.db, { network: 'mainnet' })
      return { database, checksums }
    })()
    return cleanRun
  }

  beforeAll(async () => {
    const started = await startNode()
    nodes.push(started.node)
    clean = started
  })

  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop()))
    await Promise.all(databases.map((d) => d.close()))
  })

  test('default: exactly 8,192 blocks and 1,410 uncles; every uncle rebuilds to its hash and the derived geth answer', async () => {
    const { database, checksums } = await indexClean()
    const { db } = database
    expect(checksums.blocks).toBe(8192)
    expect(checksums.uncles).toBe(1410)
    const lines = readFixtureJsonl<DerivedUncle>(derived)
    expect(lines).toHaveLength(1410)
    for (const line of lines) {
      const uncle = await getUncle(db, { network: 'mainnet', blockHash: line.blockHash, index: Number(line.index) })
      expect(uncle).not.toBeNull()
      if (!uncle) continue
      expect(hashHeader(uncle)).toBe(uncle.hash)
      expect(JSON.stringify(toRpcUncle(uncle, { totalDifficulty: 'omit' }, uncle.size))).toBe(JSON.stringify(line.result))
    }
  }, 120_000)

  test('behavior: upstream faults and two SIGKILLs of the indexer leave identical tables, no gap, no duplicate', async () => {
    const faulty = await startNode(['--fault-error-rate', '0.1', '--fault-latency-ms', '0-50', '--seed', '7'])
    nodes.push(faulty.node)
    const database = await newDatabase()
    const config = writeConfig(faulty.url)
    const env = { DATABASE_URL: database.url }
    const { db } = database
    // Kill mid-ingestion: once a random share of the blocks is in, plus a random instant.
    // Note: the kill points are random and printed, so a failing run can be repeated.
    const kills = [0.1 + Math.random() * 0.3, 0.5 + Math.random() * 0.3].map((share) => ({ share, delayMs: Math.round(Math.random() * 300) }))
    process.stdout.write(`era1 faults test kill points: ${JSON.stringify(kills)}\n`)
    for (const { share, delayMs } of kills) {
      const indexer = spawnCli(['indexer', '--config', config, ...indexerFlags], { env })
      while ((await tableChecksums(db, { network: 'mainnet' }).catch(() => ({ blocks: 0 }))).blocks < share * 8192)
        await new Promise((resolve) => setTimeout(resolve, 100))
      await new Promise((resolve) => setTimeout(resolve, delayMs))
      expect(await indexer.stop('SIGKILL')).toBe('SIGKILL')
    }
    const final = await runCli(['indexer', '--config', config, '--exit-when-done', ...indexerFlags], { env })
    expect(final.code).toBe(0)
    expect(await tableChecksums(db, { network: 'mainnet' })).toEqual((await indexClean()).checksums)
    const status = await runCli(['status', '--config', config], { env })
    expect(status.stdout).toContain('gaps: none')
    expect(status.code).toBe(0)
  }, 120_000)

  test('error: a tampered block is refused with a clear error, every other block is indexed, status shows it', async () => {
    const tampered = await startNode(['--tamper-block', '4242'])
    nodes.push(tampered.node)
    const database = await newDatabase()
    const config = writeConfig(tampered.url)
    const env = { DATABASE_URL: database.url }
    const indexer = spawnCli(['indexer', '--config', config, ...indexerFlags], { env: { ...env, LOG_LEVEL: 'error' } })
    await indexer.waitFor(/blocks refused: failed verification/, 60_000)
    // Wait until the other ranges are all written, then look at the status.
    let status = await runCli(['status', '--config', config, '--json'], { env })
    for (let i = 0; i < 60 && !/"failed": \[\s*\{/.test(status.stdout); i++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      status = await runCli(['status', '--config', config, '--json'], { env })
    }
    await indexer.stop()
    expect(indexer.stderr()).toMatch(
      /Block 4242 \(0x[0-9a-f]{64}\) failed verification: header hashes to 0x[0-9a-f]{64}, not to its claimed hash/,
    )
    const [network] = JSON.parse(status.stdout) as { blocks: number; gaps: unknown[]; failed: { reason: string }[] }[]
    expect(network?.blocks).toBe(8191)
    expect(network?.gaps).toEqual([{ from: '4242', to: '4242' }])
    expect(network?.failed[0]?.reason).toMatch(/refused, not written: 4242/)
    const human = await runCli(['status', '--config', config], { env })
    expect(human.code).toBe(3)
    expect(human.stdout).toMatch(/gaps: 4242\n/)
  }, 120_000)

  test('error: the database dropped and created again under the old queue: status says so, and it is indexed again within 2 minutes, exactly once', async () => {
    const database = await newDatabase()
    const config = writeConfig(clean.url)
    const env = { DATABASE_URL: database.url }
    const first = await runCli(['indexer', '--config', config, '--exit-when-done', ...indexerFlags], { env })
    expect(first.code).toBe(0)
    // What an operator starting over does: the database goes, the queues in Redis stay.
    await database.dropDatabase()
    await migrateDatabase({ url: database.url })
    const status = await runCli(['status', '--config', config, '--json'], { env })
    expect(status.code).toBe(3)
    const [before] = JSON.parse(status.stdout) as { queueOwner: string; contradicted: { id: string }[] }[]
    expect(before?.queueOwner).toBe('another database')
    expect(before?.contradicted).toHaveLength(8192 / 256)
    const again = spawnCli(['indexer', '--config', config, '--exit-when-done', ...indexerFlags], { env: { ...env, LOG_LEVEL: 'info' } })
    const timer = setTimeout(() => void again.stop('SIGKILL'), 120_000)
    const code = await again.exited.finally(() => clearTimeout(timer))
    const log = again.stdout() + again.stderr()
    expect(code, log.slice(-3000)).toBe(0)
    expect(log.match(/the job queues in Redis were made for another database of this name/g)).toHaveLength(1)
    // Exactly once: every block written by this run once, and the tables equal to a clean run's.
    expect(/"msg":"indexer stopped".*?"blocks_written":(\d+)/.exec(log)?.[1]).toBe('8192')
    const { db } = database
    expect(await tableChecksums(db, { network: 'mainnet' })).toEqual((await indexClean()).checksums)
    const after = JSON.parse((await runCli(['status', '--config', config, '--json'], { env })).stdout) as { queueOwner: string; contradicted: unknown[] }[]
    expect(after[0]?.queueOwner).toBe('this database')
    expect(after[0]?.contradicted).toEqual([])
  }, 240_000)

  test('error: a wrong chainId in the config is refused before anything is written', async () => {
    const database = await newDatabase()
    const result = await runCli(['indexer', '--config', writeConfig(clean.url, 61), '--exit-when-done'], {
      env: { DATABASE_URL: database.url },
    })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('network "mainnet": the node reports chainId 1, but the config says 61; refusing to index it')
    const { db } = database
    expect(await listNetworks(db)).toEqual([])
    expect((await tableChecksums(db, { network: 'mainnet' })).blocks).toBe(0)
  })
})
