import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { hashesReady, openEra1, verifyEra1 } from '@uncle-rpc/chain'
import { referenceVerifyEra1 } from './era1Reference.js'

// npx tsx bench/era1-decode.ts [--rounds 5] [--file path.era1]...
// openEra1 + verifyEra1 of whole era1 files on one core, in blocks/s: plain (verify only), with
// `onRawBlock` (the byte form an indexer writes from) and with `onBlock` (domain form), against
// the old path (bench/era1Reference.ts). Files: real mainnet epoch 0 from the shared fixtures,
// plus any --file given (e.g. one written by `uncle-rpc era1 write --synthetic 8192 --out dir`).

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values: flags } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, file: { type: 'string', multiple: true, default: [] } },
})
const rounds = Number(flags.rounds)
const epoch0 = join(root, '..', 'shared', 'fixtures', 'mainnet-era1', 'mainnet-00000-5ec1ffb8.era1')
const files = [...(existsSync(epoch0) ? [epoch0] : []), ...flags.file]
if (files.length === 0) throw new Error(`no era1 file: ${epoch0} is missing and no --file was given`)

await hashesReady()

/** Best of `rounds` (the machine is shared: the fastest round is the least disturbed). */
function blocksPerSecond(run: () => number): number {
  let best = 0
  for (let i = 0; i < rounds; i++) {
    const started = performance.now()
    const blocks = run()
    best = Math.max(best, blocks / ((performance.now() - started) / 1000))
  }
  return best
}

process.stdout.write('| file | blocks | old path | verifyEra1 | + onRawBlock | + onBlock (domain) | speed-up |\n|---|---|---|---|---|---|---|\n')
for (const path of files) {
  const bytes = readFileSync(path)
  const reference = referenceVerifyEra1(bytes)
  const checked = verifyEra1(openEra1(bytes))
  if (checked.accumulatorRoot !== reference.accumulatorRoot || checked.uncles !== reference.uncles)
    throw new Error(`${path}: new and old paths disagree`)
  const old = blocksPerSecond(() => referenceVerifyEra1(bytes).blocks)
  const plain = blocksPerSecond(() => verifyEra1(openEra1(bytes)).blocks)
  let sink = 0
  const raw = blocksPerSecond(() => verifyEra1(openEra1(bytes), { onRawBlock: (b) => (sink += b.uncles.length) }).blocks)
  const domain = blocksPerSecond(() => verifyEra1(openEra1(bytes), { onBlock: (b) => (sink += b.uncles.length) }).blocks)
  const f = (n: number) => Math.round(n).toLocaleString('en')
  process.stdout.write(
    `| ${path.split('/').pop()} | ${checked.blocks} | ${f(old)} | ${f(plain)} | ${f(raw)} | ${f(domain)} | ${(plain / old).toFixed(1)}× |\n`,
  )
}
