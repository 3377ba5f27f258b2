import { copyFileSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type TableChecksums, tableChecksums } from '@uncle-rpc/db/chain'
import { type OpenTestDatabase, openTestDatabase } from '@uncle-rpc/db/testing'
import { type CliProcess, describeWithFixtures, fixturePath, readFixtureJsonl, runCli, spawnCli } from '@uncle-rpc/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { writeSyntheticEra1Dir } from './_test/syntheticEra1.js'

// Acceptance of the era1 source, every process real (indexer, rpc, Postgres, Redis) and no
// node at all: the real mainnet epoch 0 read straight from its file, refused files, SIGKILLs.

const era1 = 'mainnet-era1/mainnet-00000-5ec1ffb8.era1'
const roots = 'mainnet-era1/premerge-epoch-roots.txt'
const derived = 'derived/geth_eth_getUncleByBlockHashAndIndex_mainnet_0-8191.jsonl'
type DerivedUncle = { blockHash: string; blockNumber: number; index: string; result: Record<string, unknown> }

const tmp = (label: string) => mkdtempSync(join(tmpdir(), `uncle-rpc-era1-${label}-`))

function writeConfig(network: Record<string, unknown>): string {
  const path = join(tmp('config'), 'networks.json')
  writeFileSync(path, JSON.stringify({ networks: [{ fromBlock: 0, confirmations: 0, ...network }] }))
  return path
}

/** The geth answer with `"totalDifficulty":null` where geth ≤ 1.9.9 (and Infura's sample) put it. */
function expectedResultJson(result: Record<string, unknown>): string {
  const json = JSON.stringify(result)
  const at = json.indexOf(',"transactionsRoot"')
  return `${json.slice(0, at)},"totalDifficulty":null${json.slice(at)}`
}

const flags = ['--lock-duration-ms', '3000']

describeWithFixtures([era1, roots, derived], 'indexer on era1 files, no node', () => {
  const databases: OpenTestDatabase[] = []
  const processes: CliProcess[] = []
  let synthetic: string
  let names: Map<number, string>
  const blocks = 3 * 8192 + 100

  const newDatabase = async () => {
    const database = await openTestDatabase({ max: 1 })
    databases.push(database)
    return database
  }
  const checksums = (database: OpenTestDatabase, network: string): Promise<TableChecksums> => tableChecksums(database.db, { network })
  // The synthetic files indexed straight from their directory: what the other runs must end with
  // (indexed once, on demand).
  let cleanRun: Promise<TableChecksums> | undefined
  const indexClean = () => {
    cleanRun ??= (async () => {
      const clean = await newDatabase()
      const direct = writeConfig({ name: 'synthetic', chainId: 1337, toBlock: blocks - 1, era1: synthetic })
      expect((await runCli(['indexer', '--config', direct, '--exit-when-done', ...flags], { env: { DATABASE_URL: clean.url } })).code).toBe(0)
      return checksums(clean, 'synthetic')
    })()
    return cleanRun
  }
  const status = async (config: string, url: string) => {
    const result = await runCli(['status', '--config', config, '--json'], { env: { DATABASE_URL: url } })
    return JSON.parse(result.stdout)[0] as { blocks: number; gaps: unknown[]; era1Refused: { epoch: number; file: string; reason: string }[] }
  }

  beforeAll(async () => {
    synthetic = tmp('synthetic')
    names = await writeSyntheticEra1Dir({ dir: synthetic, blocks, seed: 11 })
  }, 120_000)

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()))
    await Promise.all(databases.map((d) => d.close()))
  })

  test('default: real epoch 0 from its file: 8,192 blocks, 1,410 uncles, every RPC answer byte-exact', async () => {
    const dir = tmp('epoch0')
    symlinkSync(fixturePath(era1), join(dir, 'mainnet-00000-5ec1ffb8.era1'))
    const config = writeConfig({ name: 'mainnet', chainId: 1, toBlock: 8191, era1: dir, era1Roots: fixturePath(roots) })
    const database = await newDatabase()
    const env = { DATABASE_URL: database.url }
    const indexer = await runCli(['indexer', '--config', config, '--exit-when-done', ...flags], { env })
    expect(indexer.code, indexer.stderr).toBe(0)
    expect(indexer.stderr).not.toMatch(/"level":50|NO PUBLISHED EPOCH ROOTS/)
    expect(await checksums(database, 'mainnet')).toMatchObject({ blocks: 8192, uncles: 1410 })

    const key = (await runCli(['keys', 'create', '--plan', 'team', '--rps', '100000', '--label', 'era1'], { env })).stdout
      .trimEnd()
      .split('\n')
      .at(-1)
    const rpc = spawnCli(['rpc', '--config', config, '--port', '0', '--db-deadline-ms', '10000'], { env })
    processes.push(rpc)
    const base = (await rpc.waitFor(/rpc listening on (http:\/\/\S+?)\/v3\//, 60_000))[1]
    const lines = readFixtureJsonl<DerivedUncle>(derived)
    expect(lines).toHaveLength(1410)
    const different: string[] = []
    for (let at = 0; at < lines.length; at += 500) {
      const chunk = lines.slice(at, at + 500)
      const body = `[${chunk.map((u, i) => `{"jsonrpc":"2.0","id":${at + i},"method":"eth_getUncleByBlockHashAndIndex","params":["${u.blockHash}","${u.index}"]}`).join(',')}]`
      const response = await fetch(`${base}/v3/${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      const text = await response.text()
      const expected = `[${chunk.map((u, i) => `{"jsonrpc":"2.0","id":${at + i},"result":${expectedResultJson(u.result)}}`).join(',')}]`
      if (text === expected) continue
      const got = JSON.parse(text) as unknown[]
      const want = JSON.parse(expected) as unknown[]
      const i = want.findIndex((w, k) => JSON.stringify(w) !== JSON.stringify(got[k]))
      different.push(`batch at ${at}, entry ${i}: ${JSON.stringify(got[i] ?? got).slice(0, 400)}`)
    }
    expect(different).toEqual([])
  }, 180_000)

  test('error: a flipped byte and a self-consistent file named as a mainnet epoch are refused, named and recorded; the rest is indexed', async () => {
    // Synthetic chain 1337, no roots: self-consistency only, said loudly; epoch 1 has one byte flipped.
    const dir = tmp('flipped')
    for (const [epoch, name] of names) {
      copyFileSync(join(synthetic, name), join(dir, name))
      if (epoch !== 1) continue
      const bytes = readFileSync(join(dir, name))
      const at = Math.floor(bytes.length / 2)
      bytes[at] = (bytes[at] as number) ^ 0x10
      writeFileSync(join(dir, name), bytes)
    }
    const config = writeConfig({ name: 'synthetic', chainId: 1337, toBlock: blocks - 1, era1: dir })
    const database = await newDatabase()
    const indexer = await runCli(['indexer', '--config', config, '--exit-when-done', ...flags], { env: { DATABASE_URL: database.url } })
    expect(indexer.code, indexer.stderr).toBe(0)
    expect(indexer.stderr).toContain('NO PUBLISHED EPOCH ROOTS')
    expect(indexer.stderr).toContain(`Refused era1 file ${names.get(1)} (epoch 1): `)
    const flipped = await status(config, database.url)
    expect(flipped.blocks).toBe(blocks - 8192)
    expect(flipped.gaps).toEqual([{ from: '8192', to: '16383' }])
    expect(flipped.era1Refused).toEqual([{ epoch: 1, file: names.get(1), reason: expect.any(String), at: expect.any(String) }])
    const human = await runCli(['status', '--config', config], { env: { DATABASE_URL: database.url } })
    expect(human.code).toBe(3)
    expect(human.stdout).toContain(`refused era1 file ${names.get(1)} (epoch 1)`)

    // Mainnet roots: the real epoch 0 passes; a synthetic epoch named as mainnet's epoch 1 does not.
    const mixed = tmp('mixed')
    symlinkSync(fixturePath(era1), join(mixed, 'mainnet-00000-5ec1ffb8.era1'))
    const impostor = `mainnet-00001-${(names.get(1) as string).split('-')[2]}`
    copyFileSync(join(synthetic, names.get(1) as string), join(mixed, impostor))
    const mainnetConfig = writeConfig({ name: 'mainnet', chainId: 1, toBlock: 16383, era1: mixed, era1Roots: fixturePath(roots) })
    const second = await newDatabase()
    const run = await runCli(['indexer', '--config', mainnetConfig, '--exit-when-done', ...flags], { env: { DATABASE_URL: second.url } })
    expect(run.code, run.stderr).toBe(0)
    const refused = await status(mainnetConfig, second.url)
    expect(refused.blocks).toBe(8192)
    expect(refused.era1Refused).toEqual([
      { epoch: 1, file: impostor, reason: expect.stringMatching(/0xa5364e9a/), at: expect.any(String) },
    ])
  }, 180_000)

  test('behavior: from an http mirror that answers 500 and drops connections: every epoch arrives once, downloads are removed', async () => {
    const files = new Map([...names.values()].map((name) => [name, readFileSync(join(synthetic, name))]))
    let requests = 0
    const server = createServer((req, res) => {
      requests++
      const name = decodeURIComponent((req.url ?? '/').slice(1))
      if (requests % 4 === 0) return void res.writeHead(500).end()
      if (name === '') return void res.end([...files.keys()].map((f) => `<a href="${f}">${f}</a>`).join('\n'))
      const bytes = files.get(name)
      if (!bytes) return void res.writeHead(404).end()
      const start = Number(/bytes=(\d+)-/.exec(req.headers.range ?? '')?.[1] ?? 0)
      const headers = { 'content-length': String(bytes.length - start), ...(start > 0 && { 'content-range': `bytes ${start}-${bytes.length - 1}/${bytes.length}` }) }
      res.writeHead(start > 0 ? 206 : 200, headers)
      // Every fifth answer breaks off halfway: the download resumes from there.
      if (requests % 5 === 0) return void res.write(bytes.subarray(start, start + Math.floor((bytes.length - start) / 2)), () => res.destroy())
      res.end(bytes.subarray(start))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as { port: number }).port
    const downloads = tmp('downloads')
    try {
      const config = writeConfig({ name: 'synthetic', chainId: 1337, toBlock: blocks - 1, era1: `http://127.0.0.1:${port}/` })
      const database = await newDatabase()
      const run = await runCli(['indexer', '--config', config, '--exit-when-done', ...flags], { env: { DATABASE_URL: database.url, TMPDIR: downloads } })
      expect(run.code, run.stderr.slice(-2000)).toBe(0)
      expect(run.stderr).toContain('era1 download retry')
      expect(await checksums(database, 'synthetic')).toEqual(await indexClean())
      expect(readdirSync(join(downloads, 'uncle-rpc-era1', 'synthetic'))).toEqual([])
    } finally {
      server.close()
    }
  }, 180_000)

  test('behavior: two SIGKILLs mid-epoch leave no gap and no duplicate', async () => {
    const config = writeConfig({ name: 'synthetic', chainId: 1337, toBlock: blocks - 1, era1: synthetic })
    const expected = await indexClean()
    expect(expected).toMatchObject({ blocks })

    const database = await newDatabase()
    const env = { DATABASE_URL: database.url }
    // Note: the kill instants are random and printed, so a failing run can be repeated.
    const kills = [0.2, 0.6].map((share) => ({ share, delayMs: Math.round(Math.random() * 400) }))
    process.stdout.write(`era1 SIGKILL test kill points: ${JSON.stringify(kills)}\n`)
    for (const { share, delayMs } of kills) {
      const indexer = spawnCli(['indexer', '--config', config, '--era1-concurrency', '1', ...flags], { env })
      while ((await checksums(database, 'synthetic').catch(() => ({ blocks: 0 }))).blocks < share * blocks)
        await new Promise((resolve) => setTimeout(resolve, 20))
      // Note: the next epoch is being verified or written now; kill at a random instant of it.
      await new Promise((resolve) => setTimeout(resolve, delayMs))
      expect(await indexer.stop('SIGKILL')).toBe('SIGKILL')
    }
    const final = await runCli(['indexer', '--config', config, '--exit-when-done', ...flags], { env })
    expect(final.code, final.stderr).toBe(0)
    expect(await checksums(database, 'synthetic')).toEqual(expected)
    expect((await status(config, database.url)).gaps).toEqual([])
  }, 180_000)
})
