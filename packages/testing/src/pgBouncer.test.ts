import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, describe, expect, test } from 'vitest'
import { findPgBouncer, type PgBouncer, startPgBouncer } from './pgBouncer.js'
import { findTool, requireTool } from './tools.js'

const run = promisify(execFile)

/** One statement through psql at `url`; the unaligned, tuples-only output, or the error's text. */
async function psql(url: string, statement: string, env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout } = await run(findTool('psql') ?? 'psql', [url, '-XAtc', statement], { env: { ...process.env, ...env }, timeout: 10_000 })
    return stdout.trim()
  } catch (error) {
    return `error: ${(error as { stderr?: string }).stderr ?? String(error)}`
  }
}

describe.skipIf(requireTool('pgbouncer', 'pgbouncer') === undefined)('startPgBouncer', () => {
  const started: PgBouncer[] = []
  afterAll(async () => {
    await Promise.all(started.map((bouncer) => bouncer.stop()))
  })

  test('default: queries reach the shared Postgres through PgBouncer in the mode asked', async () => {
    expect(findPgBouncer()).toBeDefined()
    const bouncer = await startPgBouncer({ poolMode: 'transaction' })
    started.push(bouncer)
    expect(await psql(bouncer.url(), 'select 40 + 2')).toBe('42')
    const config = await psql(bouncer.url('pgbouncer'), 'show config')
    expect(config).toMatch(/^pool_mode\|transaction\|/m)
  })

  test('behavior: a startup parameter is refused unless ignoreStartupParameters names it', async () => {
    const strict = await startPgBouncer({ poolMode: 'session' })
    const lenient = await startPgBouncer({ poolMode: 'session', ignoreStartupParameters: ['options'] })
    started.push(strict, lenient)
    const env = { PGOPTIONS: '-c statement_timeout=1000' }
    expect(await psql(strict.url(), 'select 1', env)).toMatch(/unsupported startup parameter: options/)
    // Note: PgBouncer drops the parameter it ignores, so the server keeps its own default.
    expect(await psql(lenient.url(), 'show statement_timeout', env)).toBe('0')
  })
})
