import { BaseError, NonRetryableError } from '@uncle-rpc/errors'
import type { Hex } from '../header.js'

/** A snappy framed stream that is malformed or fails its CRC32C check. */
export class SnappyFrameError extends BaseError {
  /** Byte offset of the offending chunk inside the stream. */
  readonly offset: number
  constructor({ offset, reason, cause }: { offset: number; reason: string; cause?: unknown }) {
    super(`Invalid snappy framed stream at byte ${offset}: ${reason}`, { name: 'SnappyFrameError', cause })
    this.offset = offset
  }
}

/** An e2store/era1 file whose structure is not what the format says (bad record, index, length, payload). */
export class Era1FormatError extends BaseError {
  /** Byte offset in the file where the problem was found. */
  readonly offset: number
  /** The block whose records are broken, when the problem is inside a block tuple. */
  readonly blockNumber: bigint | undefined
  constructor({
    offset,
    reason,
    blockNumber,
    cause,
  }: {
    offset: number
    reason: string
    blockNumber?: bigint | undefined
    cause?: unknown
  }) {
    const where = blockNumber === undefined ? `at byte ${offset}` : `in block ${blockNumber} (byte ${offset})`
    super(`Invalid era1 file ${where}: ${reason}`, {
      name: 'Era1FormatError',
      cause,
      ...(cause instanceof BaseError ? { details: cause.shortMessage } : {}),
    })
    this.offset = offset
    this.blockNumber = blockNumber
  }
}

/** A block number outside the range an era1 file holds. */
export class Era1BlockRangeError extends BaseError {
  readonly blockNumber: bigint
  constructor({ blockNumber, startNumber, count }: { blockNumber: bigint; startNumber: bigint; count: number }) {
    super(`Block ${blockNumber} is not in this era1 file (it holds blocks ${startNumber}–${startNumber + BigInt(count) - 1n})`, {
      name: 'Era1BlockRangeError',
    })
    this.blockNumber = blockNumber
  }
}

/** What differed when an era1 file's blocks do not agree with each other or with its accumulator. */
export type Era1Mismatch =
  | { what: 'blockNumber'; expected: bigint; got: bigint }
  | { what: 'parentHash'; expected: Hex; got: Hex }
  | { what: 'totalDifficulty'; expected: bigint; got: bigint }
  | { what: 'accumulatorRoot'; expected: Hex; computed: Hex }
  | { what: 'publishedRoot'; epoch: number; expected: Hex; computed: Hex }
  | { what: 'fileName'; part: 'epoch' | 'root'; expected: string; got: string }

/** An era1 file decodes, but its contents contradict each other (chain links, difficulty sums, accumulator). */
export class Era1VerificationError extends BaseError {
  readonly blockNumber: bigint | undefined
  readonly mismatch: Era1Mismatch
  constructor({ blockNumber, mismatch }: { blockNumber?: bigint | undefined; mismatch: Era1Mismatch }) {
    const where = blockNumber === undefined ? 'Era1 file' : `Era1 block ${blockNumber}`
    super(`${where} failed verification: ${describeMismatch(mismatch)}`, { name: 'Era1VerificationError' })
    this.blockNumber = blockNumber
    this.mismatch = mismatch
  }
}

function describeMismatch(m: Era1Mismatch): string {
  switch (m.what) {
    case 'blockNumber':
      return `header number is ${m.got}, expected ${m.expected} from the block index`
    case 'parentHash':
      return `parentHash is ${m.got}, but the previous block hashes to ${m.expected}`
    case 'totalDifficulty':
      return `total difficulty is ${m.got}, expected ${m.expected} (previous total + difficulty)`
    case 'accumulatorRoot':
      return `epoch accumulator root computes to ${m.computed}, but the file stores ${m.expected}`
    case 'fileName':
      return `the file name says ${m.part} ${m.got}, but the content gives ${m.expected}`
    case 'publishedRoot':
      return `epoch ${m.epoch} accumulator root computes to ${m.computed}, but the published root of epoch ${m.epoch} is ${m.expected}`
  }
}

/**
 * An era1 file refused whole: names the file, its epoch (when known) and what differed. `cause`
 * is the underlying Era1FormatError, Era1VerificationError, BlockVerificationError, etc. The same
 * file fails the same way again, so it is not retried.
 */
export class Era1FileRefusedError extends NonRetryableError {
  readonly file: string
  readonly epoch: number | undefined
  /** What differed, in one line (the cause's short message). */
  readonly reason: string
  constructor({ file, epoch, cause }: { file: string; epoch?: number | undefined; cause: unknown }) {
    const reason = cause instanceof BaseError ? cause.shortMessage : String((cause as Error)?.message ?? cause)
    super(`Refused era1 file ${file}${epoch === undefined ? '' : ` (epoch ${epoch})`}: ${reason}`, {
      name: 'Era1FileRefusedError',
      cause,
      ...(cause instanceof BaseError && cause.details ? { details: cause.details } : {}),
    })
    this.file = file
    this.epoch = epoch
    this.reason = reason
  }
}

/** A block tuple's payloads decode as RLP but are not shaped like a header, a body or a total difficulty. */
export class Era1PayloadError extends BaseError {
  constructor(reason: string) {
    super(reason, { name: 'Era1PayloadError' })
  }
}

/** More header records than one epoch holds (8192). */
export class EpochOverflowError extends BaseError {
  constructor(reason: string) {
    super(reason, { name: 'EpochOverflowError' })
  }
}

/** No published accumulator root applies to this file (not at an epoch boundary, or the epoch is not in the roots file). */
export class PublishedRootMissingError extends BaseError {
  constructor(reason: string) {
    super(reason, { name: 'PublishedRootMissingError' })
  }
}
