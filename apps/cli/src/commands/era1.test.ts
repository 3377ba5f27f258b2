import { execFile } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { cliBin, describeWithFixtures, fixturePath } from '@uncle-rpc/testing'
import { afterAll, describe, expect, test } from 'vitest'

const exec = promisify(execFile)
const era1 = 'mainnet-era1/mainnet-00000-5ec1ffb8.era1'
const work = mkdtempSync(join(tmpdir(), 'uncle-rpc-era1-cli-'))

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [cliBin, 'era1', ...args], { maxBuffer: 1 << 24 })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

afterAll(() => rmSync(work, { recursive: true, force: true }))

// Note: each run starts a process (a process start each), so the tests run concurrently.
describe.concurrent('uncle-rpc era1', () => {
  test('default: write a synthetic chain, then verify it (self-consistency only, said loudly)', async () => {
    const out = join(work, 'synthetic')
    const written = await cli('write', '--synthetic', '9000', '--out', out, '--seed', '3')
    expect(written.code).toBe(0)
    expect(written.stdout).toMatch(/^synthetic-00000-([0-9a-f]{8})\.era1 {2}8192 blocks {2}\d+ uncles {2}root 0x\1[0-9a-f]{56}\n/)
    expect(written.stdout).toMatch(/\nwrote 2 files to .*: 9000 blocks, \d+ uncles, \d+ bytes in [\d.]+ s \(\d+ blocks\/s\)\n$/)
    const names = readdirSync(out).sort()
    expect(names).toHaveLength(2)
    // Two processes write the same files (each takes an epoch).
    const parallel = join(work, 'synthetic-jobs')
    const writtenRoots = join(work, 'written-roots.txt')
    const jobs = await cli('write', '--synthetic', '9000', '--out', parallel, '--seed', '3', '--jobs', '2', '--roots', writtenRoots)
    expect(jobs.stdout).toMatch(/\nwrote 2 files to .*: 9000 blocks, /)
    // --roots: the roots in epoch order (the single process printed its lines in that order), whatever order the jobs printed them in.
    const printedRoots = [...written.stdout.matchAll(/root (0x[0-9a-f]{64})/g)].map((m) => m[1])
    expect(printedRoots).toHaveLength(2)
    expect(readFileSync(writtenRoots, 'utf8')).toBe(`${printedRoots.join('\n')}\n`)
    expect(readdirSync(parallel).sort()).toEqual(names)
    for (const name of names) expect(readFileSync(join(parallel, name)).equals(readFileSync(join(out, name)))).toBe(true)
    const verified = await cli('verify', out)
    expect(verified.code).toBe(0)
    const lines = verified.stdout.trim().split('\n')
    expect(lines[0]).toMatch(
      new RegExp(`^${names[0]} {2}epoch 0 {2}root 0x[0-9a-f]{64} {2}8192 blocks {2}\\d+ uncles {2}OK \\(self-consistent only: no published roots for synthetic; pass --roots\\)$`),
    )
    expect(lines[1]).toMatch(/^synthetic-00001-[0-9a-f]{8}\.era1 {2}epoch 1 .* 808 blocks .*OK \(self-consistent only/)
    expect(lines[2]).toBe('2 of 2 files verified')
    expect(verified.stderr).toContain(`warning: ${names[0]}: only self-consistency was checked (no published roots)`)
    // The same files checked against a roots file that holds their roots pass as published.
    const roots = join(work, 'synthetic-roots.txt')
    writeFileSync(roots, `# test roots\n${lines.slice(0, 2).map((l) => /root (0x[0-9a-f]{64})/.exec(l)![1]).join('\n')}\n`)
    const withRoots = await cli('verify', out, '--roots', roots)
    expect(withRoots).toMatchObject({ code: 0, stderr: '' })
    expect(withRoots.stdout.match(/OK \(published root\)/g)).toHaveLength(2)
    expect((await cli('verify', parallel, '--roots', writtenRoots)).stdout.match(/OK \(published root\)/g)).toHaveLength(2)
  }, 180_000)

  test('args: --help of era1, verify and write', async () => {
    const [top, verify, write] = await Promise.all([cli('--help'), cli('verify', '--help'), cli('write', '--help')])
    expect(top).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: uncle-rpc era1 <subcommand>') })
    expect(verify).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: uncle-rpc era1 verify <file|dir>... [--roots <file>]') })
    expect(write).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: uncle-rpc era1 write --synthetic <blocks> --out <dir>') })
  })

  test('error: bad usage exits 2', async ({ expect }) => {
    const results = await Promise.all([
      cli('write', '--synthetic', '10'),
      cli('write', '--synthetic', 'ten', '--out', work),
      cli('write', '--synthetic', '9000', '--out', work, '--epochs', '1-1', '--roots', join(work, 'r.txt')),
      cli('verify'),
      cli('bogus'),
    ])
    expect(results.map((r) => [r.code, r.stderr.split('\n')[0]])).toMatchInlineSnapshot(`
      [
        [
          2,
          "era1 write: --out <dir> is required",
        ],
        [
          2,
          "era1 write: --synthetic: expected an integer 0–4294967295, got "ten"",
        ],
        [
          2,
          "era1 write: --roots: the epochs must start at 0 (line n of a roots file is epoch n)",
        ],
        [
          2,
          "era1 verify: name at least one era1 file or directory",
        ],
        [
          2,
          "era1: unknown subcommand "bogus"",
        ],
      ]
    `)
  })
})

describeWithFixtures([era1], 'uncle-rpc era1 verify (mainnet)', () => {
  test('error: real epoch 0 passes; a flipped byte and a synthetic file named as mainnet epoch 0 are refused', async () => {
    const dir = join(work, 'mainnet')
    const forgedDir = join(work, 'forged')
    const written = await cli('write', '--synthetic', '8192', '--out', forgedDir, '--network', 'mainnet')
    expect(written.code).toBe(0)
    const forged = readdirSync(forgedDir)[0]!
    copyFileSync(join(forgedDir, forged), join(work, forged))
    const flipped = Buffer.from(readFileSync(fixturePath(era1)))
    flipped[2_000_000]! ^= 0x01
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir)
    writeFileSync(join(dir, 'mainnet-00000-5ec1ffb8.era1'), flipped)
    const result = await cli('verify', fixturePath(era1), dir, join(work, forged))
    expect(result.code).toBe(1)
    const lines = result.stdout.trim().split('\n')
    expect(lines[0]).toBe(
      'mainnet-00000-5ec1ffb8.era1  epoch 0  root 0x5ec1ffb8c3b146f42606c74ced973dc16ec5a107c0345858c343fc94780b4218  8192 blocks  1410 uncles  OK (published root)',
    )
    expect(lines[1]).toMatch(/^mainnet-00000-5ec1ffb8\.era1 {2}epoch 0 {2}FAILED: /)
    expect(lines[2]).toMatch(
      new RegExp(
        `^${forged} {2}epoch 0 {2}FAILED: Era1 file failed verification: epoch 0 accumulator root computes to 0x${forged.slice(14, 22)}[0-9a-f]{56}, but the published root of epoch 0 is 0x5ec1ffb8c3b146f42606c74ced973dc16ec5a107c0345858c343fc94780b4218$`,
      ),
    )
    expect(lines[3]).toBe('1 of 3 files verified, 2 FAILED')
  }, 120_000)
})
