import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { markRangeIndexed, registerNetwork } from '@uncle-rpc/db/chain'
import { type OpenTestDatabase, openTestDatabase } from '@uncle-rpc/db/testing'
import { runCli } from '@uncle-rpc/testing'
import { sql } from 'drizzle-orm'
import { afterAll, expect, test } from 'vitest'

// `uncle-rpc status` on an index that is being written: ranges of 2,000 blocks finished 5 to 45 s
// ago, none in the last seconds (as when each range takes longer than a second). The rate is what
// the database records over the last minute, not "0 blocks/s, ETA unknown".

let database: OpenTestDatabase | undefined

afterAll(async () => {
  await database?.close()
})

test('behavior: status --json shows the blocks indexed over the last minute as blocks/s, with an ETA', async () => {
  database = await openTestDatabase({ max: 1 })
  const { db } = database
  const network = 'ratecheck'
  await registerNetwork(db, { name: network, chainId: 1337n })
  for (let i = 0; i < 5; i++) {
    await markRangeIndexed(db, { network, from: BigInt(i * 2000), to: BigInt(i * 2000 + 1999) })
    await db.execute(sql`update indexed_ranges set completed_at = now() - make_interval(secs => ${5 + 10 * i}) where network = ${network} and from_block = ${i * 2000}`)
  }
  const config = join(tmpdir(), `uncle-rpc-status-rate-${process.pid}.json`)
  writeFileSync(config, JSON.stringify({ networks: [{ name: network, chainId: 1337, rpcUrl: 'http://127.0.0.1:9/', fromBlock: 0, toBlock: 99_999, confirmations: 0 }] }))
  const result = await runCli(['status', '--config', config, '--json'], { env: { DATABASE_URL: database.url } })
  const [status] = JSON.parse(result.stdout) as { blocksPerSecond: number | null; eta: string | null; indexedHeight: string }[]
  expect(status?.indexedHeight).toBe('9999')
  expect(status?.blocksPerSecond).toBeCloseTo(10_000 / 60, 3)
  // 90,000 blocks left at ~167 blocks/s: 9 minutes.
  expect(status?.eta).toBe('9m')
}, 120_000)
