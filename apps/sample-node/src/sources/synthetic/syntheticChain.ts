import { BaseError } from '@uncle-rpc/errors'
import { type Hex } from '@uncle-rpc/chain'
import { LRUCache } from 'lru-cache'
import type { ChainBlock, ChainSource } from '../chainSource.js'
import { buildHashPrefixIndex, hashPrefix } from '../hashIndex.js'
import { ancestorWindow, segmentSize } from './chainModel.js'
import { createGeneratorContext, type GeneratedBlock, generateBlock, type Summary, summarize } from './generateBlock.js'
import { type MaterializedBlock, materializeBlock, toHex, transactionHashes } from './materialize.js'

export type SyntheticChainOptions = {
  seed: number
  /** Initial length: blocks 0 … blocks-1. */
  blocks: number
  /** First London block (base fee from here on); undefined: never. */
  londonAt?: number | undefined
  chainId: bigint
  /** Materialized segments of 1,024 blocks kept in memory (default 16). */
  cacheSegments?: number | undefined
  /** Replaced (side) blocks kept answerable by hash (default 10,000, oldest dropped first). */
  sideBlockLimit?: number | undefined
  /** Called every `progressEvery` blocks (default 2^20) during the startup pass. */
  onProgress?: ((generated: number, total: number) => void) | undefined
  progressEvery?: number | undefined
}

/** A generated chain that can also grow and reorganise while being served. */
export type SyntheticChain = ChainSource & {
  /** Adds one block on top of the head. */
  append(): void
  /** Replaces the last `depth` blocks with a sibling branch one block longer (a PoW reorg). */
  reorg(depth: number): void
  /** Counts for tests and benchmarks. */
  stats(): { head: number; segmentsCached: number; sideBlocks: number; reorgs: number; checkpoints: number }
}

/** The synthetic chain cannot do what was asked (e.g. a reorg deeper than its history). */
export class SyntheticChainError extends BaseError {
  constructor(message: string) {
    super(message, { name: 'SyntheticChainError' })
  }
}

type Segment = { generated: GeneratedBlock[]; materialized: (MaterializedBlock | undefined)[] }

// Canonical summaries kept behind the head: reorgs up to this deep can rebuild their ancestors.
const recentKeep = 64

/**
 * Generates a deterministic chain of `blocks` blocks in one pass that keeps only what
 * regeneration needs: per 1,024-block segment a checkpoint (the 7 canonical summaries before
 * it), per block a 4-byte hash prefix. Blocks are regenerated segment by segment when asked for.
 */
export async function createSyntheticChain(options: SyntheticChainOptions): Promise<SyntheticChain> {
  if (!Number.isSafeInteger(options.blocks) || options.blocks < 1 || options.blocks >= 2 ** 32)
    throw new SyntheticChainError(`chain length must be 1 … 2^32-1 blocks, got ${options.blocks}`)
  const context = await createGeneratorContext({ seed: options.seed, londonAt: options.londonAt })
  const cache = new LRUCache<number, Segment>({ max: options.cacheSegments ?? 16 })
  const sideLimit = options.sideBlockLimit ?? 10_000

  // Invariants: `checkpoints[s]` holds the canonical summaries of the (up to) 7 blocks before
  // block s·1024; `recent` ends with the head's summary and holds at least min(head+1, 64);
  // `prefixes[n]` is the hash prefix of canonical block n for n ≤ head; `branches` names the
  // branch of every canonical block that is not branch 0.
  const checkpoints: Summary[][] = []
  let prefixes = new Uint32Array(options.blocks + 1024)
  let recent: Summary[] = []
  let head = -1
  const branches = new Map<number, number>()
  const liveIndex = new Map<number, number[]>()
  const sideBlocks = new Map<Hex, MaterializedBlock>()
  let reorgs = 0

  const addBlock = (number: number, branch: number): GeneratedBlock => {
    if (number % segmentSize === 0) checkpoints[number / segmentSize] = recent.slice(-ancestorWindow)
    const block = generateBlock(context, recent, number, branch)
    if (number >= prefixes.length) {
      const grown = new Uint32Array(Math.ceil(prefixes.length * 1.25) + segmentSize)
      grown.set(prefixes)
      prefixes = grown
    }
    prefixes[number] = hashPrefix(block.header.hash)
    recent.push(summarize(block))
    if (recent.length >= 2 * recentKeep) recent = recent.slice(-recentKeep)
    head = number
    return block
  }

  const progressEvery = options.progressEvery ?? 2 ** 20
  for (let n = 0; n < options.blocks; n++) {
    addBlock(n, 0)
    if (options.onProgress && (n + 1) % progressEvery === 0) options.onProgress(n + 1, options.blocks)
  }
  const index = buildHashPrefixIndex(prefixes, options.blocks)

  // A segment is regenerated whole (blocks need their ancestors) but materialized per block.
  const segment = (s: number): Segment => {
    const cached = cache.get(s)
    if (cached) return cached
    const ancestors = (checkpoints[s] as Summary[]).slice()
    const generated: GeneratedBlock[] = []
    const end = Math.min(head + 1, (s + 1) * segmentSize)
    for (let n = s * segmentSize; n < end; n++) {
      const block = generateBlock(context, ancestors, n, branches.get(n) ?? 0)
      generated.push(block)
      ancestors.push(summarize(block))
      if (ancestors.length > ancestorWindow) ancestors.shift()
    }
    const entry: Segment = { generated, materialized: [] }
    cache.set(s, entry)
    return entry
  }

  const canonical = (number: number): MaterializedBlock => {
    const entry = segment(Math.floor(number / segmentSize))
    const offset = number % segmentSize
    let block = entry.materialized[offset]
    if (block === undefined) {
      block = materializeBlock(entry.generated[offset] as GeneratedBlock)
      entry.materialized[offset] = block
    }
    return block
  }

  // Confirms a hash candidate from the generated bytes, without materializing the block.
  const canonicalHashIs = (number: number, hash: Hex): boolean => {
    const block = segment(Math.floor(number / segmentSize)).generated[number % segmentSize] as GeneratedBlock
    return toHex(block.header.hash) === hash
  }

  const toChainBlock = (block: MaterializedBlock): ChainBlock => ({
    ...block,
    transactionHashes: transactionHashes(options.seed, Number(block.header.number), block.branch, block.txCount),
  })

  // A block produced after startup: index it, and extend a cached head segment in place.
  const addLiveBlock = (number: number, branch: number): void => {
    const block = addBlock(number, branch)
    const prefix = prefixes[number] as number
    const list = liveIndex.get(prefix)
    if (list) list.push(number)
    else liveIndex.set(prefix, [number])
    const s = Math.floor(number / segmentSize)
    const cached = cache.get(s)
    if (cached && cached.generated.length === number % segmentSize) cached.generated.push(block)
    else cache.delete(s)
  }

  const keepSideBlock = (block: MaterializedBlock): void => {
    sideBlocks.set(block.header.hash, block)
    while (sideBlocks.size > sideLimit) sideBlocks.delete(sideBlocks.keys().next().value as Hex)
  }

  const description = [
    `synthetic ${options.blocks} blocks, seed ${options.seed}`,
    options.londonAt !== undefined ? `London at ${options.londonAt}` : undefined,
  ]
    .filter(Boolean)
    .join(', ')

  return {
    description,
    chainId: options.chainId,
    head: () => BigInt(head),
    blockByNumber(number) {
      if (number < 0n || number > BigInt(head)) return undefined
      return toChainBlock(canonical(Number(number)))
    },
    blockByHash(hash) {
      const wanted = hash.toLowerCase() as Hex
      const side = sideBlocks.get(wanted)
      if (side) return toChainBlock(side)
      const prefix = hashPrefix(wanted)
      for (const n of [...(liveIndex.get(prefix) ?? []), ...index.candidates(prefix)]) {
        if (n <= head && prefixes[n] === prefix && canonicalHashIs(n, wanted)) return toChainBlock(canonical(n))
      }
      return undefined
    },
    append() {
      addLiveBlock(head + 1, 0)
    },
    reorg(depth) {
      const from = head - depth + 1
      if (!Number.isSafeInteger(depth) || depth < 1 || depth > recentKeep - 8 || from < 1)
        throw new SyntheticChainError(`cannot reorg ${depth} blocks at head ${head}`)
      for (let n = from; n <= head; n++) {
        const old = canonical(n)
        keepSideBlock(old)
        const list = liveIndex.get(prefixes[n] as number)
        if (list)
          liveIndex.set(
            prefixes[n] as number,
            list.filter((m) => m !== n),
          )
      }
      for (const s of [...cache.keys()]) if (s >= Math.floor(from / segmentSize)) cache.delete(s)
      const oldHead = head
      recent = recent.slice(0, recent.length - depth)
      head = from - 1
      const branch = ++reorgs
      for (let n = from; n <= oldHead + 1; n++) {
        branches.set(n, branch)
        addLiveBlock(n, branch)
      }
    },
    stats: () => ({ head, segmentsCached: cache.size, sideBlocks: sideBlocks.size, reorgs, checkpoints: checkpoints.length }),
  }
}
