// Generation speed and memory of a synthetic chain.
//   node --expose-gc --conditions=uncle-rpc-source --import tsx apps/sample-node/bench/generate.ts [blocks=1000000] [samples=10]
// Prints blocks/s, heap + array buffers sampled during the startup pass (after a GC when
// --expose-gc is given), and the cost of random hash lookups and block reads afterwards.
import { createSyntheticChain } from '../src/sources/synthetic/syntheticChain.js'

const blocks = Number(process.argv[2] ?? 1_000_000)
const samples = Number(process.argv[3] ?? 10)
const gc = (globalThis as { gc?: () => void }).gc
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`
const memory = () => {
  gc?.()
  const m = process.memoryUsage()
  return { live: m.heapUsed + m.arrayBuffers, rss: m.rss }
}

const base = memory()
const out = (line: string) => process.stdout.write(`${line}\n`)
out(`baseline: heap+buffers ${mib(base.live)}, rss ${mib(base.rss)}${gc ? '' : ' (no --expose-gc: figures include garbage)'}`)
const started = performance.now()
let paused = 0
const chain = await createSyntheticChain({
  seed: 1,
  blocks,
  londonAt: Math.floor(blocks / 2),
  chainId: 1337n,
  progressEvery: Math.max(1, Math.floor(blocks / samples)),
  onProgress(done) {
    const t = performance.now()
    const m = memory()
    out(`  ${String(done).padStart(9)} blocks: heap+buffers ${mib(m.live)} (+${mib(m.live - base.live)}), rss ${mib(m.rss)}`)
    paused += performance.now() - t
  },
})
const seconds = (performance.now() - started - paused) / 1000
const after = memory()
out(`generated ${blocks} blocks in ${seconds.toFixed(2)} s: ${Math.round(blocks / seconds)} blocks/s`)
out(
  `after: heap+buffers ${mib(after.live)} (+${mib(after.live - base.live)}, ${((after.live - base.live) / blocks).toFixed(1)} bytes/block), rss ${mib(after.rss)}`,
)

let t = performance.now()
const lookups = 200
for (let i = 0; i < lookups; i++) {
  const n = BigInt(Math.floor(Math.random() * blocks))
  const hash = chain.blockByNumber(n)?.header.hash
  if (!hash || chain.blockByHash(hash)?.header.number !== n) throw new Error(`lookup of block ${n} failed`)
}
out(`random block + hash lookups (cold segments): ${((performance.now() - t) / lookups).toFixed(2)} ms each`)
t = performance.now()
const start = BigInt(Math.floor(blocks / 3))
for (let n = start; n < start + 20_000n && n < BigInt(blocks); n++) chain.blockByNumber(n)
out(`sequential block reads: ${Math.round(20_000 / ((performance.now() - t) / 1000))} blocks/s`)
const end = memory()
out(`end: heap+buffers ${mib(end.live)}, rss ${mib(end.rss)}, ${JSON.stringify(chain.stats())}`)
