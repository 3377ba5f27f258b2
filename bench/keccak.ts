import { parseArgs } from 'node:util'
import { createKeccak } from 'hash-wasm'
import { keccak256 } from 'viem'

// npx tsx bench/keccak.ts [--count 200000]
// keccak256 of a 540-byte header (a typical pre-London mainnet header RLP) by each candidate:
// hash-wasm (WebAssembly, what packages/chain uses), viem's (@noble/hashes, pure JS) and, when it
// is installed, the `keccak` native addon (not a dependency: npm 11 does not run its install
// script, it loads only from the prebuilds it ships). Ratios are against viem's.

const { values: flags } = parseArgs({ options: { count: { type: 'string', default: '200000' } } })
const count = Number(flags.count)
const data = Uint8Array.from({ length: 540 }, (_, i) => (i * 7) & 0xff)

function rate(hash: (d: Uint8Array) => unknown): number {
  for (let i = 0; i < 10_000; i++) hash(data)
  const started = performance.now()
  for (let i = 0; i < count; i++) hash(data)
  return count / ((performance.now() - started) / 1000)
}

const wasm = await createKeccak(256)
const candidates: [string, (d: Uint8Array) => unknown][] = [
  ['viem (@noble/hashes, JS)', (d) => keccak256(d, 'bytes')],
  ['hash-wasm (WebAssembly)', (d) => wasm.init().update(d).digest('binary')],
]
try {
  const moduleName = 'keccak'
  const native = ((await import(moduleName)) as { default: (a: string) => { update(b: Buffer): { digest(): Buffer } } }).default
  const buffer = Buffer.from(data)
  candidates.push(['keccak (native addon)', () => native('keccak256').update(buffer).digest()])
} catch {
  process.stderr.write('keccak (native addon) not installed: skipped (npm i --no-save keccak to include it)\n')
}

const rates = candidates.map(([name, hash]) => [name, rate(hash)] as const)
const base = rates[0]![1]
process.stdout.write('| keccak256 of 540 bytes | hashes/s | vs viem |\n|---|---|---|\n')
for (const [name, r] of rates) process.stdout.write(`| ${name} | ${Math.round(r).toLocaleString('en')} | ${(r / base).toFixed(1)}× |\n`)
