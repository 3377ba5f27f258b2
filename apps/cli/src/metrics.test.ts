import { readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { countBlocks, reorgsSince } from '@uncle-rpc/db/chain'
import { type OpenTestDatabase, useTestDatabase } from '@uncle-rpc/db/testing'
import { metricFamilies, parseMetrics, type Sample, sumSamples } from '@uncle-rpc/metrics'
import { type CliProcess, repositoryRoot, runCli, spawnCli } from '@uncle-rpc/testing'
import { afterAll, describe, expect, test, vi } from 'vitest'

// A live sample node that stops producing after a few seconds, a real indexer and rpc with
// --metrics-port: the head lag the indexer reports is the node's own, the written-blocks counter
// matches the database, and every metric the Grafana dashboard queries is exported. Then
// `uncle-rpc status` (snapshot, --json, --watch) against the same node.

const metricsLine = (name: string) => new RegExp(`${name} metrics on (http://\\S+)`)

async function scrape(url: string): Promise<{ text: string; samples: Sample[] }> {
  const text = await (await fetch(url)).text()
  return { text, samples: parseMetrics(text) }
}

/** Metric names in the dashboard's PromQL (histogram series mapped back to their family). */
function dashboardMetrics(): Set<string> {
  const dashboard = JSON.parse(readFileSync(join(repositoryRoot, 'docker/grafana/dashboards/uncle-rpc.json'), 'utf8')) as {
    panels: { targets: { expr: string }[] }[]
  }
  const names = dashboard.panels.flatMap((p) => p.targets.flatMap((t) => t.expr.match(/\buncle_rpc_[a-z_]+/g) ?? []))
  return new Set(names.map((n) => n.replace(/_(bucket|sum|count)$/, '')))
}

describe('metrics of a running indexer and rpc', () => {
  let database: OpenTestDatabase
  const processes: CliProcess[] = []

  useTestDatabase({ max: 1 }, (opened) => (database = opened))
  // Note: vitest runs after-hooks last registered first: the processes stop before the database is dropped.
  afterAll(() => Promise.all(processes.map((p) => p.stop())))

  test('default: head lag against the live node, blocks written = blocks stored, reorgs, jobs; the dashboard queries only exported metrics', async () => {
    const node = spawnCli(['sample-node', '--port', '0', '--synthetic', '400', '--seed', '5', '--block-time', '100', '--reorg-rate', '0.2', '--reorg-depth', '2', '--stop-after', '40'])
    processes.push(node)
    const url = (await node.waitFor(/listening on (http:\/\/\S+)/, 30_000))[1]!
    const config = join(tmpdir(), `uncle-rpc-metrics-${process.pid}.json`)
    writeFileSync(config, JSON.stringify({ networks: [{ name: 'live', chainId: 1337, rpcUrl: url, confirmations: 2 }] }))
    const env = { DATABASE_URL: database.url }
    const indexer = spawnCli(['indexer', '--config', config, '--poll-interval-ms', '200', '--metrics-port', '0'], { env })
    const rpc = spawnCli(['rpc', '--config', config, '--port', '0', '--metrics-port', '0', '--rate-limits', 'off'], { env })
    processes.push(indexer, rpc)
    const indexerMetrics = (await indexer.waitFor(metricsLine('indexer'), 60_000))[1]!
    const rpcMetrics = (await rpc.waitFor(metricsLine('rpc'), 60_000))[1]!
    const head = Number((await node.waitFor(/live chain stopped at head (\d+)/, 60_000))[1])

    const { db } = database
    // Note: a range's blocks are counted once its job has written them, a moment after the commit
    // that moves the indexed height: the counters are read until they caught up (a CI run under
    // load scraped 2 written against 440 stored).
    const { text, samples } = await vi.waitFor(async () => {
      const scraped = await scrape(indexerMetrics)
      expect(sumSamples(scraped.samples, 'uncle_rpc_indexer_indexed_height', { network: 'live' })).toBe(head)
      expect(sumSamples(scraped.samples, 'uncle_rpc_indexer_blocks_written_total', { network: 'live', source: 'rpc' })).toBe(await countBlocks(db, { network: 'live' }))
      const reorgs = await reorgsSince(db, { afterId: 0n, network: 'live' })
      expect(sumSamples(scraped.samples, 'uncle_rpc_indexer_reorgs_total', { network: 'live' })).toBe(reorgs.length)
      return scraped
    }, { timeout: 30_000, interval: 250 })
    const nodeHead = sumSamples(samples, 'uncle_rpc_indexer_node_head', { network: 'live' })
    // The head follower indexes up to the node's head (blocks above head − confirmations may still be replaced).
    expect(nodeHead).toBe(head)
    expect(nodeHead - sumSamples(samples, 'uncle_rpc_indexer_indexed_height', { network: 'live' })).toBe(0)
    expect(sumSamples(samples, 'uncle_rpc_indexer_target_height', { network: 'live' })).toBe(head)

    expect(sumSamples(samples, 'uncle_rpc_indexer_upstream_requests_total', { network: 'live', outcome: 'ok' })).toBeGreaterThan(0)
    expect(sumSamples(samples, 'uncle_rpc_indexer_jobs', { network: 'live', state: 'completed' })).toBeGreaterThan(0)
    expect(sumSamples(samples, 'uncle_rpc_indexer_jobs', { network: 'live', state: 'failed' })).toBe(0)

    const exported = new Set([...metricFamilies(text), ...metricFamilies((await scrape(rpcMetrics)).text)])
    const queried = dashboardMetrics()
    expect(queried.size).toBeGreaterThan(10)
    expect([...queried].filter((name) => !exported.has(name))).toEqual([])

    // `uncle-rpc status` against the same node: bar, rate, ETA and head lag; --json keeps the fields; --watch refreshes.
    const status = await runCli(['status', '--config', config], { env })
    expect(status.stdout).toMatch(new RegExp(`^  \\[█{20}\\] 100%  ${head.toLocaleString('en-US')} / ${head.toLocaleString('en-US')}  [\\d,.]+ blocks/s  ETA done  head lag 0$`, 'm'))
    const json = JSON.parse((await runCli(['status', '--config', config, '--json'], { env })).stdout) as Record<string, unknown>[]
    expect(json[0]).toMatchObject({ network: 'live', indexedHeight: String(head), target: String(head), nodeHead: String(head), headLag: '0', eta: 'done' })
    const watch = spawnCli(['status', '--config', config, '--watch', '--interval-ms', '200'], { env })
    await watch.waitFor(/head lag 0[\s\S]*head lag 0/, 30_000)
    expect(await watch.stop('SIGINT')).toBe(0)

    expect(await indexer.stop()).toBe(0)
    expect(await rpc.stop()).toBe(0)
  }, 120_000)
})
