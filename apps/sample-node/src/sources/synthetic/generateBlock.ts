import { hashesReady, keccak256Bytes, rlpListLength, uncleSizeFromRlpLength, writeRlpPrefix } from '@uncle-rpc/chain'
import { createRng, type Rng } from '../../rng.js'
import {
  blockInterval,
  bloomClass,
  createBloomPool,
  createMinerPool,
  difficultyTrend,
  emptyTrieRoot,
  emptyUnclesHash,
  gasLimitTrend,
  genesisTimestamp,
  initialBaseFee,
  nextBaseFee,
  transactionCap,
  uncleBlockRate,
  zeroAddress,
  zeroBloom,
  zeroHash,
} from './chainModel.js'
import { encodeHeaderRlp, maxHeaderRlpLength, type RawHeader } from './headerRlp.js'

/** What later blocks need to know about a canonical block (parent values, uncle ancestry). */
export type Summary = {
  number: number
  hash: Uint8Array
  timestamp: number
  difficulty: bigint
  gasLimit: number
  gasUsed: number
  baseFeePerGas: bigint | undefined
  /** Total difficulty up to and including this block. */
  totalDifficulty: bigint
}

export type GeneratedHeader = { raw: RawHeader; hash: Uint8Array; rlpLength: number }

export type GeneratedBlock = {
  header: GeneratedHeader
  uncles: GeneratedHeader[]
  /** 0 for the original chain; reorgs produce blocks of other branches at the same heights. */
  branch: number
  txCount: number
  /** RLP length of `[header, transactions, uncles]`. */
  size: number
  totalDifficulty: bigint
}

/** Everything block generation needs besides the ancestors: built once per chain. */
export type GeneratorContext = {
  seed: number
  londonAt: number | undefined
  miners: ReturnType<typeof createMinerPool>
  blooms: Uint8Array[][]
  scratch: Uint8Array
  unclesScratch: Uint8Array
  /** Share of blocks that include uncles. */
  uncleRate: number
}

/** Builds the generator context of a chain (async: packages/chain's WebAssembly keccak loads first). */
export async function createGeneratorContext({
  seed,
  londonAt,
  uncleRate = uncleBlockRate,
}: {
  seed: number
  londonAt: number | undefined
  uncleRate?: number | undefined
}) {
  await hashesReady()
  const context: GeneratorContext = {
    seed,
    londonAt,
    miners: createMinerPool(seed),
    blooms: createBloomPool(seed),
    scratch: new Uint8Array(maxHeaderRlpLength),
    unclesScratch: new Uint8Array(maxHeaderRlpLength * 2 + 8),
    uncleRate,
  }
  return context
}

function hashRaw(context: GeneratorContext, raw: RawHeader): GeneratedHeader {
  const rlpLength = encodeHeaderRlp(raw, context.scratch)
  return { raw, hash: keccak256Bytes(context.scratch.subarray(0, rlpLength)), rlpLength }
}

function jitterDifficulty(rng: Rng, difficulty: bigint): bigint {
  return difficulty + (difficulty * BigInt(rng.int(2049) - 1024)) / 1_048_576n
}

function randomBytes(rng: Rng, length: number): Uint8Array {
  const bytes = new Uint8Array(length)
  rng.fill(bytes)
  return bytes
}

const depthWeights = [55, 25, 10, 5, 3, 2]

// Note: spread into a header literal where the fields stand, so the seeded draws keep their order
// (a chain generated from a seed is the same chain in every version).
/** The state, transactions and receipts roots and the bloom of a block or uncle; an empty one has the empty trie's roots and no bloom bits. */
function contentRoots(rng: Rng, empty: boolean, bloomSet: readonly Uint8Array[]): Pick<RawHeader, 'stateRoot' | 'transactionsRoot' | 'receiptsRoot' | 'logsBloom'> {
  return {
    stateRoot: randomBytes(rng, 32),
    transactionsRoot: empty ? emptyTrieRoot : randomBytes(rng, 32),
    receiptsRoot: empty ? emptyTrieRoot : randomBytes(rng, 32),
    logsBloom: empty ? zeroBloom : (bloomSet[rng.int(bloomSet.length)] as Uint8Array),
  }
}

/** A header's proof-of-work seal: random mix hash and nonce (never checked against a DAG). */
function sealFields(rng: Rng): Pick<RawHeader, 'mixHash' | 'nonce'> {
  return { mixHash: randomBytes(rng, 32), nonce: randomBytes(rng, 8) }
}

// An uncle `depth` generations back: a sibling of canonical block number-depth, whose parent
// (number-depth-1) is one of the including block's 7 ancestors other than its own parent.
function makeUncle(context: GeneratorContext, rng: Rng, ancestors: readonly Summary[], depth: number): GeneratedHeader {
  const sibling = ancestors[ancestors.length - depth] as Summary
  const parent = ancestors[ancestors.length - depth - 1] as Summary
  const miner = context.miners.pick(rng)
  const gasUsed = sibling.gasUsed === 0 ? 0 : Math.min(sibling.gasLimit, Math.floor(sibling.gasUsed * (0.5 + rng.float())))
  const bloomSet = context.blooms[bloomClass(Math.floor(gasUsed / 60_000))] as Uint8Array[]
  const raw: RawHeader = {
    parentHash: parent.hash,
    sha3Uncles: emptyUnclesHash,
    miner: miner.address,
    ...contentRoots(rng, gasUsed === 0, bloomSet),
    difficulty: jitterDifficulty(rng, sibling.difficulty),
    number: sibling.number,
    gasLimit: sibling.gasLimit,
    gasUsed,
    timestamp: Math.max(parent.timestamp + 1, sibling.timestamp - 2 + rng.int(8)),
    extraData: miner.extraData,
    ...sealFields(rng),
    baseFeePerGas: sibling.baseFeePerGas,
  }
  let uncle = hashRaw(context, raw)
  // Note: a collision with the canonical sibling is ~2^-256 likely; the rule is kept anyway.
  while (Buffer.compare(uncle.hash, sibling.hash) === 0) uncle = hashRaw(context, { ...raw, timestamp: raw.timestamp + 1 })
  return uncle
}

function makeUncles(context: GeneratorContext, rng: Rng, ancestors: readonly Summary[]): GeneratedHeader[] {
  const maxDepth = Math.min(6, ancestors.length - 1)
  if (maxDepth < 1 || rng.float() >= context.uncleRate) return []
  const count = rng.float() < 0.2 ? 2 : 1
  const uncles: GeneratedHeader[] = []
  for (let i = 0; i < count; i++) {
    let x = rng.int(100)
    let depth = 1
    while (depth < 6 && x >= (depthWeights[depth - 1] as number)) x -= depthWeights[depth++ - 1] as number
    uncles.push(makeUncle(context, rng, ancestors, Math.min(depth, maxDepth)))
  }
  return uncles
}

function unclesHashAndPayload(context: GeneratorContext, uncles: readonly GeneratedHeader[]): [Uint8Array, number] {
  if (uncles.length === 0) return [emptyUnclesHash, 0]
  // Re-encode each uncle into the list buffer (the scratch buffer held only the last one).
  const out = context.unclesScratch
  let p = 4
  for (const uncle of uncles) p += encodeHeaderRlp(uncle.raw, out.subarray(p))
  const payload = p - 4
  const prefix = writeRlpPrefix(out, 0, payload, true)
  const start = 4 - prefix
  out.copyWithin(start, 0, prefix)
  return [keccak256Bytes(out.subarray(start, p)), payload]
}

function genesis(context: GeneratorContext): GeneratedBlock {
  const rng = createRng(context.seed, 0, 0, 1)
  const raw: RawHeader = {
    parentHash: zeroHash,
    sha3Uncles: emptyUnclesHash,
    miner: zeroAddress,
    stateRoot: randomBytes(rng, 32),
    transactionsRoot: emptyTrieRoot,
    receiptsRoot: emptyTrieRoot,
    logsBloom: zeroBloom,
    difficulty: difficultyTrend(0),
    number: 0,
    gasLimit: gasLimitTrend(0),
    gasUsed: 0,
    timestamp: genesisTimestamp,
    extraData: randomBytes(rng, 32),
    mixHash: zeroHash,
    nonce: Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0x42),
    baseFeePerGas: context.londonAt === 0 ? initialBaseFee : undefined,
  }
  const header = hashRaw(context, raw)
  const size = uncleSizeFromRlpLength(header.rlpLength)
  return { header, uncles: [], branch: 0, txCount: 0, size, totalDifficulty: raw.difficulty }
}

/**
 * Generates block `number` of branch `branch` on top of `ancestors` (the canonical blocks
 * before it, oldest first, the last being its parent; 7 suffice: geth's uncle window).
 * The result depends only on the seed, the number, the branch and the ancestors.
 */
export function generateBlock(
  context: GeneratorContext,
  ancestors: readonly Summary[],
  number: number,
  branch: number,
): GeneratedBlock {
  if (number === 0) return genesis(context)
  const parent = ancestors[ancestors.length - 1] as Summary
  const rng = createRng(context.seed, number, branch, 1)
  const london = context.londonAt !== undefined && number >= context.londonAt
  const trend = gasLimitTrend(number) * (london ? 2 : 1)
  const gasLimit = trend - rng.int(Math.floor(trend / 2048) + 1)
  const baseFeePerGas = !london
    ? undefined
    : parent.baseFeePerGas === undefined
      ? initialBaseFee
      : nextBaseFee({ ...parent, baseFeePerGas: parent.baseFeePerGas })
  let gasUsed: number
  let txCount: number
  if (baseFeePerGas !== undefined) {
    // Note: demand falls as the base fee rises above ~30 gwei, so the fee stays in a plausible band.
    const pressure = Math.log2(Number(baseFeePerGas) / 30e9)
    const noise = rng.float() + rng.float() + rng.float() - 1.5
    const fraction = Math.min(2, Math.max(0, 1 + 0.7 * noise - 0.15 * pressure))
    gasUsed = Math.min(gasLimit, Math.round((gasLimit / 2) * fraction))
    txCount = gasUsed < 21_000 ? 0 : Math.max(1, Math.floor(gasUsed / (40_000 + rng.int(60_000))))
    if (txCount === 0) gasUsed = 0
  } else {
    const cap = transactionCap(number, gasLimit)
    txCount = cap === 0 ? 0 : rng.int(cap + 1)
    gasUsed = txCount === 0 ? 0 : Math.min(gasLimit, txCount * 21_000 + rng.int(txCount * 60_000 + 1))
  }
  const txBytes = txCount === 0 ? 0 : txCount * 110 + rng.int(txCount * 220 + 1)
  const miner = context.miners.pick(rng)
  const bloomSet = context.blooms[bloomClass(txCount)] as Uint8Array[]
  const raw: RawHeader = {
    parentHash: parent.hash,
    sha3Uncles: emptyUnclesHash,
    miner: miner.address,
    ...contentRoots(rng, txCount === 0, bloomSet),
    difficulty: jitterDifficulty(rng, difficultyTrend(number)),
    number,
    gasLimit,
    gasUsed,
    timestamp: parent.timestamp + blockInterval(rng),
    extraData: miner.extraData,
    ...sealFields(rng),
    baseFeePerGas,
  }
  const uncles = makeUncles(context, rng, ancestors)
  const [sha3Uncles, unclesPayload] = unclesHashAndPayload(context, uncles)
  raw.sha3Uncles = sha3Uncles
  const header = hashRaw(context, raw)
  const size = rlpListLength(header.rlpLength + rlpListLength(txBytes) + rlpListLength(unclesPayload))
  return { header, uncles, branch, txCount, size, totalDifficulty: parent.totalDifficulty + raw.difficulty }
}

/** The summary later blocks need from a generated block. */
export function summarize(block: GeneratedBlock): Summary {
  const raw = block.header.raw
  return {
    number: raw.number,
    hash: block.header.hash,
    timestamp: raw.timestamp,
    difficulty: raw.difficulty,
    gasLimit: raw.gasLimit,
    gasUsed: raw.gasUsed,
    baseFeePerGas: raw.baseFeePerGas,
    totalDifficulty: block.totalDifficulty,
  }
}
