import { createEra1Writer, epochSize, era1FileName, type Hex, writeRlpPrefix } from '@uncle-rpc/chain'
import { uncleBlockRate } from './chainModel.js'
import { createGeneratorContext, type GeneratedBlock, generateBlock, type Summary, summarize } from './generateBlock.js'
import { encodeHeaderRlp, maxHeaderRlpLength } from './headerRlp.js'

// A synthetic chain (the sample node's chain model) written as era1 files, epoch by epoch, in
// one pass: for tests, benchmarks and the mainnet-size run. Bodies carry the uncles but no
// transactions (the model has none), receipts are empty lists.

export type WriteSyntheticEra1Parameters = {
  seed: number
  /** Chain length: blocks 0 … blocks-1, in ⌈blocks / 8192⌉ files. */
  blocks: number
  /** Network name in the file names (`<network>-<epoch>-<root8>.era1`). */
  network: string
  /** First London block (headers carry baseFeePerGas from there on); default never. */
  londonAt?: number | undefined
  /** Share of blocks that include uncles (default 0.08, mainnet's PoW era; a fifth of those have two). */
  uncleRate?: number | undefined
  /** Uncompressed snappy chunks: valid era1, faster to write, ~1.3× larger. */
  uncompressed?: boolean | undefined
  /**
   * Only write epochs fromEpoch … toEpoch (inclusive; default all). Earlier blocks are still
   * generated (each block needs its ancestors) but not encoded, so parallel writers can split a chain.
   */
  fromEpoch?: number | undefined
  toEpoch?: number | undefined
  /** Receives each finished file in order; the next epoch is generated once it resolves (bounded memory). */
  onFile: (file: SyntheticEra1File) => void | Promise<void>
}

/** One written epoch. */
export type SyntheticEra1File = { name: string; epoch: number; bytes: Uint8Array; blocks: number; uncles: number; accumulatorRoot: Hex }

const emptyReceipts = Uint8Array.of(0xc0)

/** Generates the chain and hands out its era1 files; returns totals (of the epochs written). */
export async function writeSyntheticEra1(params: WriteSyntheticEra1Parameters): Promise<{ files: number; blocks: number; uncles: number }> {
  const context = await createGeneratorContext({
    seed: params.seed,
    londonAt: params.londonAt,
    uncleRate: params.uncleRate ?? uncleBlockRate,
  })
  const headerScratch = new Uint8Array(maxHeaderRlpLength)
  const bodyScratch = new Uint8Array(4 * maxHeaderRlpLength)
  let ancestors: Summary[] = []
  let totalUncles = 0
  let totalBlocks = 0
  let files = 0
  const fromEpoch = params.fromEpoch ?? 0
  const toEpoch = params.toEpoch ?? Number.MAX_SAFE_INTEGER
  for (let start = 0; start < params.blocks; start += epochSize) {
    const epoch = start / epochSize
    const end = Math.min(params.blocks, start + epochSize)
    if (epoch > toEpoch) break
    if (epoch < fromEpoch) {
      for (let n = start; n < end; n++) {
        ancestors.push(summarize(generateBlock(context, ancestors, n, 0)))
        if (ancestors.length > 64) ancestors = ancestors.slice(-7)
      }
      continue
    }
    const writer = createEra1Writer({ startNumber: BigInt(start), uncompressed: params.uncompressed })
    let uncles = 0
    for (let n = start; n < end; n++) {
      const block = generateBlock(context, ancestors, n, 0)
      ancestors.push(summarize(block))
      if (ancestors.length > 64) ancestors = ancestors.slice(-7)
      const headerLength = encodeHeaderRlp(block.header.raw, headerScratch)
      writer.add({
        headerRlp: headerScratch.subarray(0, headerLength),
        bodyRlp: encodeBody(block, bodyScratch),
        receiptsRlp: emptyReceipts,
        totalDifficulty: block.totalDifficulty,
        hash: block.header.hash,
      })
      uncles += block.uncles.length
    }
    const { bytes, accumulatorRoot } = writer.finish()
    totalUncles += uncles
    totalBlocks += end - start
    files++
    await params.onFile({
      name: era1FileName({ network: params.network, epoch, root: accumulatorRoot }),
      epoch,
      bytes,
      blocks: end - start,
      uncles,
      accumulatorRoot,
    })
  }
  return { files, blocks: totalBlocks, uncles: totalUncles }
}

// RLP [[], [uncle headers…]] into `out` (a view of it is returned; the writer copies it).
function encodeBody(block: GeneratedBlock, out: Uint8Array): Uint8Array {
  if (block.uncles.length === 0) return emptyBody
  let p = 8 // room for both list prefixes
  for (const uncle of block.uncles) p += encodeHeaderRlp(uncle.raw, out.subarray(p))
  const unclesPayload = p - 8
  const prefix = new Uint8Array(8)
  const unclesPrefix = writeRlpPrefix(prefix, 0, unclesPayload, true)
  const bodyPayload = 1 + unclesPrefix + unclesPayload // the empty transactions list (0xc0) first
  const head = new Uint8Array(8)
  const bodyPrefix = writeRlpPrefix(head, 0, bodyPayload, true)
  const start = 8 - unclesPrefix - 1 - bodyPrefix
  out.set(head.subarray(0, bodyPrefix), start)
  out[start + bodyPrefix] = 0xc0
  out.set(prefix.subarray(0, unclesPrefix), start + bodyPrefix + 1)
  return out.subarray(start, p)
}

const emptyBody = Uint8Array.of(0xc2, 0xc0, 0xc0)
