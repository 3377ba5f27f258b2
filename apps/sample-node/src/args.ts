import { integerFlag, parseFlags, UsageError } from '@uncle-rpc/config'
import { type FaultOptions, parseLatencyRange } from './faults.js'

/** The sample node's configuration, from its flags. */
export type SampleNodeConfig = {
  source:
    | { kind: 'era1'; paths: string[]; chainId: bigint | undefined }
    | { kind: 'synthetic'; blocks: number; seed: number; londonAt: number | undefined; chainId: bigint }
  live: { blockTimeMs: number; reorgRate: number; reorgDepth: number; burst: number; stopAfter: number | undefined } | undefined
  faults: FaultOptions
  tamperBlock: bigint | undefined
  tamperUncles: bigint | undefined
  swapUncles: bigint | undefined
  maxBatchSize: number
  port: number
  host: string
}

const defaultSyntheticBlocks = 10_000
const defaultSyntheticChainId = 1337n
const mainnetLondonBlock = 12_965_000
/** Deepest allowed reorg: below `safe` (head − 32), so safe and finalized blocks never change. */
const maxReorgDepth = 31

export const usage = `Usage: uncle-rpc sample-node [flags]

A geth-compatible JSON-RPC archive node (HTTP and WebSocket on one port, batches) for development
and tests: answers
eth_chainId, net_version, eth_blockNumber, eth_getBlockByNumber/ByHash, eth_getUncleBy*AndIndex
and eth_getUncleCountBy* from era1 archives or from a generated chain, byte-for-byte as geth v1.13
(blocks carry totalDifficulty, uncles do not; each body ends with "\\n" as geth ≤ v1.17.3).
Blocks list transaction hashes for fullTx false and true alike (no transaction bodies are served).
Unknown block, number or index → null; other methods → -32601. Block tags: latest and pending =
head, safe = head − 32, finalized = head − 64, earliest = 0.
WebSocket (ws://HOST:PORT, as geth --ws): the same methods, plus eth_subscribe/eth_unsubscribe
for "newHeads"; one notification per new head the node announces (a burst or a reorg: the new
head only, as geth), so a subscriber must fetch what lies between by number.

Chain (default: --synthetic ${defaultSyntheticBlocks} --seed 1):
  --chain <path>              era1 file, or a directory of them (repeatable); verified at startup,
                              must be contiguous. Chain id from the file names (mainnet → 1).
  --synthetic <blocks>        a generated PoW chain of this many blocks (0 … blocks-1), made at startup
                              (1M blocks: 8–20 s on 2 cores) in bounded memory (~11 bytes per block
                              plus ~50 MB of caches); mainnet length (15.5M): ~3.5 min, ~170 MB
  --seed <n>                  seed of the synthetic chain, its reorgs and the faults (default 1)
  --london-at <height>        first block with baseFeePerGas (default ${mainnetLondonBlock}, mainnet's)
  --chain-id <id>             eth_chainId / net_version (synthetic default ${defaultSyntheticChainId})

Live chain (synthetic only):
  --block-time <ms>           produce a new block every <ms>
  --reorg-rate <p>            probability per new block of a reorg (default 0)
  --reorg-depth <n>           replace 1 … n blocks in a reorg (default 3, at most ${maxReorgDepth}); replaced
                              blocks stay answerable by hash (the last 10,000)
  --burst <n>                 add n blocks at each block time, announced as one new head (as geth
                              importing several blocks at once); default 1
  --stop-after <ticks>        stop producing after this many block times (a reorg counts as one);
                              then log "live chain stopped at head N" and keep serving

Faults (per HTTP request):
  --fault-error-rate <p>      HTTP 500/502/503 or JSON-RPC -32000 with probability p
  --fault-latency-ms <a[-b]>  added delay, uniform in [a, b] ms
  --fault-rate-limit <rps>    more than <rps> requests in a second → HTTP 429 with Retry-After: 1
  --fault-drop-rate <p>       destroy the connection mid-request with probability p
  --tamper-block <number>     serve this block with a changed stateRoot but its original hash
  --tamper-uncles <number>    serve this block's uncles with a changed stateRoot but their original hashes
  --swap-uncles <number>      serve, as this block's uncles, the real uncles of the next block that has
                              some (each hashes to its own hash, but is not this block's)

Server:
  --port <n>                  default 8546 (0: any free port)
  --host <addr>               default 127.0.0.1
  --max-batch-size <n>        default 1000 (geth's limit)
  -h, --help                  this text

On start it prints one line: "sample-node listening on http://HOST:PORT (chain: …, chainId N)".
SIGINT/SIGTERM close it cleanly.
`

const integer = (name: string, text: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined =>
  integerFlag(name, text, min, undefined, max)

function probability(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const value = Number(text)
  if (text.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1)
    throw new UsageError(`--${name} must be a probability from 0 to 1, got "${text}"`)
  return value
}

/** Parses the sample node's flags; `'help'` when help was asked for. Throws UsageError. */
export function parseSampleNodeArgs(argv: string[]): SampleNodeConfig | 'help' {
  const values = parseFlags(argv, {
    chain: { type: 'string', multiple: true },
    synthetic: { type: 'string' },
    seed: { type: 'string' },
    'london-at': { type: 'string' },
    'chain-id': { type: 'string' },
    'block-time': { type: 'string' },
    'reorg-rate': { type: 'string' },
    'reorg-depth': { type: 'string' },
    'stop-after': { type: 'string' },
    burst: { type: 'string' },
    'fault-error-rate': { type: 'string' },
    'fault-latency-ms': { type: 'string' },
    'fault-rate-limit': { type: 'string' },
    'fault-drop-rate': { type: 'string' },
    'tamper-block': { type: 'string' },
    'tamper-uncles': { type: 'string' },
    'swap-uncles': { type: 'string' },
    'max-batch-size': { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
  })
  if (values.help) return 'help'
  const str = (name: string) => values[name] as string | undefined
  const chainIdText = str('chain-id')
  if (chainIdText !== undefined && !/^\d+$/.test(chainIdText))
    throw new UsageError(`--chain-id must be an integer, got "${chainIdText}"`)
  const chainId = chainIdText === undefined ? undefined : BigInt(chainIdText)
  const seed = integer('seed', str('seed'), 0, 2 ** 32 - 1) ?? 1
  const chainPaths = values.chain as string[] | undefined
  if (chainPaths && str('synthetic') !== undefined) throw new UsageError('--chain and --synthetic cannot be combined')
  const source: SampleNodeConfig['source'] = chainPaths
    ? { kind: 'era1', paths: chainPaths, chainId }
    : {
        kind: 'synthetic',
        blocks: integer('synthetic', str('synthetic'), 1, 2 ** 32 - 1) ?? defaultSyntheticBlocks,
        seed,
        londonAt: integer('london-at', str('london-at'), 0) ?? mainnetLondonBlock,
        chainId: chainId ?? defaultSyntheticChainId,
      }
  const blockTimeMs = integer('block-time', str('block-time'), 1)
  const reorgRate = probability('reorg-rate', str('reorg-rate'))
  const reorgDepth = integer('reorg-depth', str('reorg-depth'), 1, maxReorgDepth)
  const stopAfter = integer('stop-after', str('stop-after'), 1)
  const burst = integer('burst', str('burst'), 1, 1000)
  if (blockTimeMs === undefined && (reorgRate !== undefined || reorgDepth !== undefined || stopAfter !== undefined || burst !== undefined))
    throw new UsageError('--reorg-rate, --reorg-depth, --burst and --stop-after need --block-time (reorgs come with new blocks)')
  if (blockTimeMs !== undefined && source.kind !== 'synthetic') throw new UsageError('--block-time needs a synthetic chain')
  const latencyText = str('fault-latency-ms')
  const latencyMs = latencyText === undefined ? undefined : parseLatencyRange(latencyText)
  if (latencyText !== undefined && latencyMs === undefined)
    throw new UsageError(`--fault-latency-ms must be <ms> or <min>-<max>, got "${latencyText}"`)
  const tamper = integer('tamper-block', str('tamper-block'), 0)
  const tamperUncles = integer('tamper-uncles', str('tamper-uncles'), 0)
  const swapUncles = integer('swap-uncles', str('swap-uncles'), 0)
  return {
    source,
    live:
      blockTimeMs === undefined ? undefined : { blockTimeMs, reorgRate: reorgRate ?? 0, reorgDepth: reorgDepth ?? 3, burst: burst ?? 1, stopAfter },
    faults: {
      errorRate: probability('fault-error-rate', str('fault-error-rate')),
      latencyMs,
      rateLimitRps: integer('fault-rate-limit', str('fault-rate-limit'), 1),
      dropRate: probability('fault-drop-rate', str('fault-drop-rate')),
      seed,
    },
    tamperBlock: tamper === undefined ? undefined : BigInt(tamper),
    tamperUncles: tamperUncles === undefined ? undefined : BigInt(tamperUncles),
    swapUncles: swapUncles === undefined ? undefined : BigInt(swapUncles),
    maxBatchSize: integer('max-batch-size', str('max-batch-size'), 1) ?? 1000,
    port: integer('port', str('port'), 0, 65535) ?? 8546,
    host: str('host') ?? '127.0.0.1',
  }
}
