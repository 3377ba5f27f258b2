import { mkdir, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { epochSize, hashesReady } from '@uncle-rpc/chain'
import { writeSyntheticEra1 } from '@uncle-rpc/sample-node'
import { runJobs, splitEpochs } from './writeJobs.js'

const usage = `Usage: uncle-rpc era1 write --synthetic <blocks> --out <dir> [--seed <n>] [--network <name>]
                            [--uncle-rate <r>] [--london-at <n>] [--uncompressed] [--jobs <n>]
                            [--roots <file>]

Writes a synthetic chain (the sample node's chain model: mainnet-like difficulty, gas, miners,
uncles) as era1 files, one per 8,192 blocks, named <network>-<epoch>-<root8>.era1. The same
--seed gives the same chain as \`uncle-rpc sample-node --synthetic <blocks> --seed <n>\`. Bodies
hold the uncles but no transactions; receipts are empty. Files are written one at a time
(<name>.tmp, then renamed), so memory stays at one epoch.

Flags:
  --synthetic <n>     chain length in blocks (mainnet's pre-merge history is 15537394)
  --out <dir>         output directory (created if missing; existing files are overwritten)
  --seed <n>          chain seed (default 1)
  --network <name>    network name in the file names (default synthetic)
  --uncle-rate <r>    share of blocks that include uncles, 0–1 (default 0.08, mainnet's PoW era;
                      a fifth of those include two)
  --london-at <n>     first block with baseFeePerGas (default: none, as mainnet before 12965000)
  --uncompressed      store payloads in uncompressed snappy chunks (valid era1; faster, larger)
  --jobs <n>          processes writing in parallel (default 1). The chain is generated in order,
                      so each process also generates, without writing, the blocks before its
                      epochs; the split balances that. File lines then come in no fixed order.
  --epochs <a>-<b>    write only epochs a … b (inclusive); used by --jobs, also usable by hand
  --roots <file>      also write the files' accumulator roots to <file>, one per line in epoch
                      order from epoch 0: the roots file a network's "era1Roots" and
                      \`era1 verify --roots\` read (with --epochs, the range must start at 0)
  -h, --help

Prints one line per file and, at the end, blocks, uncles, bytes and the writer's blocks/s.
`

type Flags = {
  synthetic?: string | undefined
  out?: string | undefined
  seed: string
  network: string
  'uncle-rate': string
  'london-at'?: string | undefined
  uncompressed: boolean
  jobs: string
  epochs?: string | undefined
  roots?: string | undefined
  help: boolean
}

function integer(name: string, text: string, max = 2 ** 32 - 1): number {
  const n = Number(text)
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n > max) throw new RangeError(`--${name}: expected an integer 0–${max}, got "${text}"`)
  return n
}

/** `uncle-rpc era1 write`. */
export async function run(argv: string[]): Promise<number> {
  let flags: Flags
  let params: {
    blocks: number
    out: string
    seed: number
    uncleRate: number
    londonAt: number | undefined
    jobs: number
    epochs: [number, number]
  }
  try {
    flags = parseArgs({
      args: argv,
      options: {
        synthetic: { type: 'string' },
        out: { type: 'string' },
        seed: { type: 'string', default: '1' },
        network: { type: 'string', default: 'synthetic' },
        'uncle-rate': { type: 'string', default: '0.08' },
        'london-at': { type: 'string' },
        uncompressed: { type: 'boolean', default: false },
        jobs: { type: 'string', default: '1' },
        epochs: { type: 'string' },
        roots: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values
    if (flags.help) {
      process.stdout.write(usage)
      return 0
    }
    if (flags.synthetic === undefined) throw new RangeError('--synthetic <blocks> is required')
    if (flags.out === undefined) throw new RangeError('--out <dir> is required')
    if (!/^[a-z0-9_]+(-[a-z0-9_]+)*$/.test(flags.network))
      throw new RangeError(`--network: expected lowercase letters, digits, _ and -, got "${flags.network}"`)
    const uncleRate = Number(flags['uncle-rate'])
    if (!(uncleRate >= 0 && uncleRate <= 1)) throw new RangeError(`--uncle-rate: expected a number 0–1, got "${flags['uncle-rate']}"`)
    const blocks = integer('synthetic', flags.synthetic)
    if (blocks < 1) throw new RangeError('--synthetic: at least 1 block')
    const lastEpoch = Math.ceil(blocks / epochSize) - 1
    const range = flags.epochs === undefined ? [0, lastEpoch] : /^(\d+)-(\d+)$/.exec(flags.epochs)?.slice(1).map(Number)
    if (range === undefined || range[0]! > range[1]! || range[1]! > lastEpoch)
      throw new RangeError(`--epochs: expected <a>-<b> with a ≤ b ≤ ${lastEpoch}, got "${flags.epochs}"`)
    if (flags.roots !== undefined && range[0] !== 0) throw new RangeError('--roots: the epochs must start at 0 (line n of a roots file is epoch n)')
    const jobs = integer('jobs', flags.jobs, 64)
    if (jobs < 1) throw new RangeError('--jobs: at least 1')
    params = {
      jobs,
      epochs: [range[0]!, range[1]!],
      blocks,
      out: flags.out,
      seed: integer('seed', flags.seed),
      uncleRate,
      londonAt: flags['london-at'] === undefined ? undefined : integer('london-at', flags['london-at']),
    }
  } catch (error) {
    process.stderr.write(`era1 write: ${(error as Error).message}\n(uncle-rpc era1 write --help for the flags)\n`)
    return 2
  }
  await mkdir(params.out, { recursive: true })
  const started = performance.now()
  // Roots by epoch, from the file lines (a job's lines come in no fixed order).
  const roots = new Map<number, string>()
  const onLine = (line: string) => {
    const match = fileLineRe.exec(line)
    if (match) roots.set(Number(match[1]), match[2]!)
  }
  const totals =
    params.jobs > 1
      ? await runJobs({ argv, ranges: splitEpochs({ from: params.epochs[0], to: params.epochs[1], jobs: params.jobs }), onLine })
      : await writeRange(params, flags, onLine)
  const seconds = (performance.now() - started) / 1000
  if (flags.roots !== undefined) {
    const ordered = Array.from({ length: params.epochs[1] + 1 }, (_, epoch) => roots.get(epoch))
    if (ordered.some((root) => root === undefined)) throw new Error('era1 write: a file line is missing; no roots file written')
    await writeFile(`${flags.roots}.tmp`, `${ordered.join('\n')}\n`)
    await rename(`${flags.roots}.tmp`, flags.roots)
  }
  process.stdout.write(
    `wrote ${totals.files} files to ${params.out}: ${totals.blocks} blocks, ${totals.uncles} uncles, ${totals.bytes} bytes in ${seconds.toFixed(1)} s (${Math.round(totals.blocks / seconds)} blocks/s)\n`,
  )
  return 0
}

type Totals = { files: number; blocks: number; uncles: number; bytes: number }

/** A file line: `<network>-<epoch>-<root8>.era1  … root 0x<root>`; groups: epoch, root. */
const fileLineRe = /^[a-z0-9_-]+-(\d{5,})-[0-9a-f]{8}\.era1 {2}.* root (0x[0-9a-f]{64})$/

async function writeRange(
  params: { blocks: number; out: string; seed: number; uncleRate: number; londonAt: number | undefined; epochs: [number, number] },
  flags: Flags,
  onLine: (line: string) => void,
): Promise<Totals> {
  await hashesReady()
  let bytes = 0
  const result = await writeSyntheticEra1({
    seed: params.seed,
    blocks: params.blocks,
    network: flags.network,
    uncleRate: params.uncleRate,
    londonAt: params.londonAt,
    uncompressed: flags.uncompressed,
    fromEpoch: params.epochs[0],
    toEpoch: params.epochs[1],
    onFile: async (file) => {
      const path = join(params.out, file.name)
      await writeFile(`${path}.tmp`, file.bytes)
      await rename(`${path}.tmp`, path)
      bytes += file.bytes.length
      const line = `${file.name}  ${file.blocks} blocks  ${file.uncles} uncles  root ${file.accumulatorRoot}`
      onLine(line)
      process.stdout.write(`${line}\n`)
    },
  })
  return { ...result, bytes }
}
