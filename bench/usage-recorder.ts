import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { createLogger } from '@uncle-rpc/config'

// npm run bench:usage-recorder -- [--count 5000000] [--rounds 5] [--baseline DIR]
// The usage recorder's hot path alone (no IO: the store drops what it is given): ns per add()
// for a single call (one key and network, the usual case), a mix of 100 keys, and a batch of two
// methods. --baseline DIR: another checkout (e.g. an older commit) measured alike, alternating
// rounds; its add() is called with the arguments it takes (no methods before usage per method).

const { values: flags } = parseArgs({ options: { count: { type: 'string', default: '5000000' }, rounds: { type: 'string', default: '5' }, baseline: { type: 'string' } } })
const count = Number(flags.count)
const rounds = Number(flags.rounds)
const logger = createLogger({ level: 'fatal', name: 'bench' })

type Add = (keyId: number, network: string, requests: number, errors: number, forwarded: number, rateLimited: number, methods: unknown) => void
type Recorder = { add: Add; stop(): Promise<void> }

async function load(root: string): Promise<(store: object) => Recorder> {
  const module = (await import(pathToFileURL(join(root, 'apps/rpc/src/access/usage.ts')).href)) as { createUsageRecorder: (deps: object, parameters: object) => Recorder }
  return (store) => module.createUsageRecorder({ store, logger }, { flushIntervalMs: 3_600_000 })
}

const store = { write: async () => {}, prune: async () => {} }
const pair = new Map([
  ['eth_getUncleCountByBlockHash', 1],
  ['eth_getUncleByBlockHashAndIndex', 1],
])
const cases: [string, (add: Add, i: number) => void][] = [
  ['one key, one method', (add) => add(1, 'mainnet', 1, 0, 0, 0, 'eth_getUncleByBlockHashAndIndex')],
  ['100 keys, one method each', (add, i) => add(i % 100, 'mainnet', 1, 0, 0, 0, 'eth_getUncleByBlockHashAndIndex')],
  ['one key, batches of two methods', (add) => add(1, 'mainnet', 2, 0, 0, 0, pair)],
]

async function measure(create: (store: object) => Recorder, run: (add: Add, i: number) => void): Promise<number> {
  const recorder = create(store)
  const add = recorder.add.bind(recorder)
  for (let i = 0; i < 100_000; i++) run(add, i)
  const started = process.hrtime.bigint()
  for (let i = 0; i < count; i++) run(add, i)
  const ns = Number(process.hrtime.bigint() - started) / count
  await recorder.stop()
  return ns
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const versions: [string, (store: object) => Recorder][] = [['this', await load(resolve('.'))]]
if (flags.baseline !== undefined) versions.push(['baseline', await load(resolve(flags.baseline))])
process.stdout.write(`${count} add() calls per round, median of ${rounds} rounds (alternating versions)\n\n| case | ${versions.map(([name]) => `${name} ns/add`).join(' | ')} |${versions.length > 1 ? ' this / baseline |' : ''}\n|---|${versions.map(() => '---:').join('|')}|${versions.length > 1 ? '---:|' : ''}\n`)
for (const [name, run] of cases) {
  const times = versions.map((): number[] => [])
  for (let r = 0; r < rounds; r++) for (const [v, [, create]] of versions.entries()) times[v]!.push(await measure(create, run))
  const medians = times.map(median)
  const ratio = medians.length > 1 ? ` ${(medians[0]! / medians[1]!).toFixed(2)}× |` : ''
  process.stdout.write(`| ${name} | ${medians.map((m) => m.toFixed(1)).join(' | ')} |${ratio}\n`)
}
