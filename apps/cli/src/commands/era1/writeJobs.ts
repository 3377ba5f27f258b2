import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { BaseError } from '@uncle-rpc/errors'

// Parallel `era1 write`: child processes of this same command, each given an epoch range.

/** Share of a block's writing cost spent generating it (measured: ~0.45), which every job pays for the blocks before its range. */
const generateShare = 0.45

/**
 * Splits epochs from … to among `jobs` so that each job's cost (generating the epochs before its
 * range, then generating and writing its range) is about equal. Returns inclusive ranges, in order.
 */
export function splitEpochs({ from, to, jobs }: { from: number; to: number; jobs: number }): [number, number][] {
  const total = to - from + 1
  const cover = (limit: number): [number, number][] | undefined => {
    const ranges: [number, number][] = []
    let start = from
    for (let j = 0; j < jobs && start <= to; j++) {
      const count = Math.max(1, Math.floor(limit - start * generateShare))
      ranges.push([start, Math.min(to, start + count - 1)])
      start += count
    }
    return start > to ? ranges : undefined
  }
  let low = total / jobs
  let high = total + to * generateShare + 1
  while (high - low > 0.5) {
    const mid = (low + high) / 2
    if (cover(mid)) high = mid
    else low = mid
  }
  return cover(high) ?? [[from, to]]
}

/** A job of a parallel write failed. */
export class Era1WriteJobError extends BaseError {
  constructor(message: string) {
    super(message, { name: 'Era1WriteJobError' })
  }
}

const bin = fileURLToPath(new URL('../../../bin/uncle-rpc.js', import.meta.url))
const summaryRe = /^wrote (\d+) files to .*: (\d+) blocks, (\d+) uncles, (\d+) bytes in /

/** Runs one child `uncle-rpc era1 write … --epochs a-b --jobs 1` per range, passing their file lines through (and to `onLine`); sums their totals. */
export async function runJobs({ argv, ranges, onLine }: { argv: readonly string[]; ranges: readonly [number, number][]; onLine?: (line: string) => void }) {
  // Note: without --roots: the parent writes the roots file from every job's lines.
  const base = stripFlags(argv, ['--jobs', '--epochs', '--roots'])
  const results = await Promise.all(
    ranges.map(
      ([a, b]) =>
        new Promise<{ files: number; blocks: number; uncles: number; bytes: number }>((resolve, reject) => {
          const child = spawn(process.execPath, [bin, 'era1', 'write', ...base, '--epochs', `${a}-${b}`, '--jobs', '1'], {
            stdio: ['ignore', 'pipe', 'inherit'],
          })
          let summary: RegExpExecArray | null = null
          createInterface({ input: child.stdout }).on('line', (line) => {
            const match = summaryRe.exec(line)
            if (match) summary = match
            else {
              onLine?.(line)
              process.stdout.write(`${line}\n`)
            }
          })
          child.once('error', reject)
          child.once('close', (code) => {
            const m = summary as RegExpExecArray | null
            if (code !== 0 || m === null) reject(new Era1WriteJobError(`era1 write of epochs ${a}-${b} failed (exit ${code})`))
            else resolve({ files: Number(m[1]), blocks: Number(m[2]), uncles: Number(m[3]), bytes: Number(m[4]) })
          })
        }),
    ),
  )
  return results.reduce((sum, r) => ({
    files: sum.files + r.files,
    blocks: sum.blocks + r.blocks,
    uncles: sum.uncles + r.uncles,
    bytes: sum.bytes + r.bytes,
  }))
}

// argv without the named flags (and their values, given as `--flag v` or `--flag=v`).
function stripFlags(argv: readonly string[], names: readonly string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (names.includes(arg)) i++
    else if (!names.some((name) => arg.startsWith(`${name}=`))) out.push(arg)
  }
  return out
}
