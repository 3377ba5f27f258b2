import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type OpenTestDatabase, useTestDatabase } from '@uncle-rpc/db/testing'
import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, test, vi } from 'vitest'
import { run } from './keysCli.js'

let database: OpenTestDatabase
let previous: string | undefined

useTestDatabase({ max: 1 }, (opened) => {
  database = opened
  previous = process.env.DATABASE_URL
  process.env.DATABASE_URL = opened.url
})

afterAll(() => {
  if (previous === undefined) delete process.env.DATABASE_URL
  else process.env.DATABASE_URL = previous
})

/** Runs `uncle-rpc keys …` in-process; what it wrote to stdout and stderr. */
async function keys(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = []
  const err: string[] = []
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => out.push(String(chunk)) > 0)
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => err.push(String(chunk)) > 0)
  try {
    const code = await run(argv)
    return { code, out: out.join(''), err: err.join('') }
  } finally {
    stdout.mockRestore()
    stderr.mockRestore()
  }
}

describe('uncle-rpc keys', () => {
  test('default: create prints the key alone on its last line; list, set-plan, revoke', async () => {
    const created = await keys('create', '--plan', 'developer', '--label', 'ci')
    expect(created.code).toBe(0)
    const key = created.out.trimEnd().split('\n').at(-1)!
    expect(key).toMatch(/^[0-9a-f]{32}$/)

    expect(await keys('set-plan', key, 'growth')).toMatchObject({ code: 0 })
    expect(await keys('revoke', key)).toMatchObject({ code: 0, out: `revoked key ${key.slice(0, 8)}…\n` })
    const listed = await keys('list')
    const [header, row] = listed.out.trimEnd().split('\n').map((line) => line.split('\t'))
    expect(header).toEqual(['prefix', 'label', 'plan', 'created', 'last_used', 'revoked', 'rps', 'daily', 'batch', 'failover'])
    expect(row?.slice(0, 3)).toEqual([key.slice(0, 8), 'ci', 'growth'])
    expect(row?.[4]).toBe('-')
    expect(row?.[5]).toMatch(/^\d{4}-\d\d-\d\dT/)
    expect(row?.slice(6)).toEqual(['500', '20000000', '1000', 'off'])
    // The key itself is stored nowhere: only its prefix and hash.
    const dump = await database.db.execute(sql`select * from api_keys`)
    expect(JSON.stringify(dump.rows)).not.toContain(key)
  })

  test('behavior: create prints the publicUrl addresses of the config\'s networks before the key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uncle-rpc-keys-'))
    const config = join(dir, 'networks.json')
    writeFileSync(
      config,
      JSON.stringify({
        networks: [
          { name: 'mainnet', chainId: 1, rpcUrl: 'http://node:8545', publicUrl: 'https://uncles.mycompany.com' },
          { name: 'sepolia', chainId: 11155111, rpcUrl: 'http://node:8546' },
        ],
      }),
    )
    try {
      const created = await keys('create', '--plan', 'core', '--config', config)
      expect(created.code).toBe(0)
      const lines = created.out.trimEnd().split('\n')
      const key = lines.at(-1) as string
      expect(lines.slice(1)).toEqual([`  mainnet  https://uncles.mycompany.com/v3/${key}  wss://uncles.mycompany.com/ws/v3/${key}`, key])
      expect(await keys('create', '--plan', 'core', '--config', join(dir, 'missing.json'))).toMatchObject({ code: 2, err: expect.stringContaining('file not found') })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('behavior: limits per key and per plan, failover, usage', async () => {
    const created = await keys('create', '--plan', 'core', '--rps', '5', '--daily', '20', '--label', 'limits')
    expect(created.code).toBe(0)
    const key = created.out.trimEnd().split('\n').at(-1)!
    const row = async () => (await keys('list')).out.split('\n').find((line) => line.startsWith(key.slice(0, 8)))!.split('\t')
    expect((await row()).slice(6)).toEqual(['5*', '20*', '100', 'not allowed'])

    expect(await keys('set-limits', key, '--rps', 'plan', '--batch', '7')).toMatchObject({
      code: 0,
      out: `key ${key.slice(0, 8)}…: rps the plan's, batch 7 (servers reload within 5 s)\n`,
    })
    expect(await keys('set-plan', key, 'growth')).toMatchObject({ code: 0 })
    expect(await keys('set-failover', key, 'on')).toMatchObject({ code: 0 })
    expect((await row()).slice(6)).toEqual(['500', '20*', '7*', 'on'])

    const plans = await keys('plans')
    expect(plans.out.split('\n')[0]).toBe('plan\trequests_per_second\trequests_per_day\tmax_batch_size\tfailover_allowed\tupdated')
    expect(plans.out).toContain('core\t10\t100000\t100\tno\t')
    const changed = await keys('set-plan-limits', 'developer', '--rps', '30', '--failover', 'on')
    expect(changed).toMatchObject({ code: 0, out: expect.stringContaining('developer\t30\t500000\t500\tyes\t') })

    const usage = await keys('usage', key, '--days', '3')
    expect(usage).toMatchObject({ code: 0, out: 'day\trequests\terrors\tforwarded\trate_limited\trefused_revoked\trefused_network\trefused_origin\trefused_user_agent\trefused_secret\ntotal\t0\t0\t0\t0\t0\t0\t0\t0\t0\n' })
  })

  test('error: bad usage and unknown keys exit 2', async () => {
    for (const argv of [
      ['create', '--plan', 'core', '--rps', '0'],
      ['create', '--plan', 'core', '--failover', 'yes'],
      ['set-limits', '0'.repeat(32), '--rps', '3'],
      ['set-limits', '0'.repeat(32)],
      ['set-failover', '0'.repeat(32), 'on'],
      ['set-failover', '0'.repeat(32), 'maybe'],
      ['set-plan-limits', 'gold', '--rps', '3'],
      ['set-plan-limits', 'core'],
      ['usage', '0'.repeat(32)],
      ['plans', 'x'],
    ])
      expect(await keys(...argv), argv.join(' ')).toMatchObject({ code: 2 })
    expect(await keys('create')).toMatchObject({ code: 2 })
    expect(await keys('create', '--plan', 'gold')).toMatchObject({ code: 2 })
    expect((await keys('create', '--plan', 'gold')).err).toContain('unknown plan "gold": expected one of core, developer, team, growth, custom')
    expect((await keys('create')).err).toContain('create needs --plan <core|developer|team|growth|custom>')
    expect(await keys('revoke', '0'.repeat(32))).toMatchObject({ code: 2, err: expect.stringContaining('no such key') })
    expect(await keys('set-plan', '0'.repeat(32), 'core')).toMatchObject({ code: 2 })
    expect(await keys('set-plan', '0'.repeat(32), 'gold')).toMatchObject({ code: 2 })
    expect(await keys('frobnicate')).toMatchObject({ code: 2 })
    expect(await keys()).toMatchObject({ code: 2 })
    expect(await keys('--help')).toMatchObject({ code: 0, out: expect.stringContaining('Usage: uncle-rpc keys') })
  })
})
