import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { epochSize, hashesReady, openEra1, verifyEra1 } from '@uncle-rpc/chain'
import { writeSyntheticEra1 } from '@uncle-rpc/sample-node'
import { referenceVerifyEra1 } from './era1Reference.js'

// npm run bench:era1-decode -- [--rounds 5] [--file path.era1]...
// openEra1 + verifyEra1 of whole era1 files on one core, in blocks/s: plain (verify only), with
// `onRawBlock` (the byte form an indexer writes from) and with `onBlock` (domain form), against
// the old path (bench/era1Reference.ts). Files: real mainnet epoch 0 from fixtures/, a
// synthetic epoch generated here (the sample node's chain model: ~8% of blocks with uncles,
// London headers) and any --file given. Figures are the best of --rounds on a shared machine.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values: flags } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, file: { type: 'string', multiple: true, default: [] } },
})
const rounds = Number(flags.rounds)
const epoch0 = join(root, 'fixtures', 'mainnet-era1', 'mainnet-00000-5ec1ffb8.era1')
await hashesReady()
const inputs: { name: string; bytes: Uint8Array }[] = []
if (existsSync(epoch0)) inputs.push({ name: 'mainnet-00000-5ec1ffb8.era1 (real)', bytes: readFileSync(epoch0) })
else process.stderr.write(`${epoch0} is missing: real epoch 0 skipped\n`)
await writeSyntheticEra1({
  seed: 1,
  blocks: epochSize,
  network: 'synthetic',
  londonAt: 0,
  onFile: (file) => void inputs.push({ name: `${file.name} (synthetic)`, bytes: file.bytes }),
})
for (const path of flags.file) inputs.push({ name: path.split('/').pop() ?? path, bytes: readFileSync(path) })

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
for (const { name, bytes } of inputs) {
  const reference = referenceVerifyEra1(bytes)
  const checked = verifyEra1(openEra1(bytes))
  if (checked.accumulatorRoot !== reference.accumulatorRoot || checked.uncles !== reference.uncles)
    throw new Error(`${name}: new and old paths disagree`)
  const old = blocksPerSecond(() => referenceVerifyEra1(bytes).blocks)
  const plain = blocksPerSecond(() => verifyEra1(openEra1(bytes)).blocks)
  let sink = 0
  const raw = blocksPerSecond(() => verifyEra1(openEra1(bytes), { onRawBlock: (b) => (sink += b.uncles.length) }).blocks)
  const domain = blocksPerSecond(() => verifyEra1(openEra1(bytes), { onBlock: (b) => (sink += b.uncles.length) }).blocks)
  const f = (n: number) => Math.round(n).toLocaleString('en')
  process.stdout.write(
    `| ${name} | ${checked.blocks} | ${f(old)} | ${f(plain)} | ${f(raw)} | ${f(domain)} | ${(plain / old).toFixed(1)}× |\n`,
  )
}
