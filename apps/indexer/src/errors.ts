import { BlockVerificationError, Era1FileRefusedError } from '@uncle-rpc/chain'
import { BaseError, NonRetryableError } from '@uncle-rpc/errors'

/** One block of a range that the node served wrongly: it must not be written. */
export type RejectedBlock = { number: bigint; error: BaseError }

/** Some blocks of a range failed verification: the rest were written, these were not. */
export class BlocksRejectedError extends BaseError {
  readonly rejected: RejectedBlock[]
  constructor(network: string, rejected: RejectedBlock[]) {
    const first = rejected[0]
    super(
      `${network}: ${rejected.length} block(s) refused, not written: ${rejected.map((r) => r.number).join(', ')}` +
        (first ? ` — ${first.error.shortMessage}` : ''),
      { name: 'BlocksRejectedError', cause: first?.error },
    )
    this.rejected = rejected
  }
}

/** A fork point was not found within the walk limit: far deeper than any plausible reorg. */
export class ReorgTooDeepError extends BaseError {
  constructor(network: string, from: bigint, limit: number) {
    super(
      `${network}: the node's chain below block ${from} differs from the stored one for more than ${limit} blocks; not rewriting that much history automatically`,
      { name: 'ReorgTooDeepError' },
    )
  }
}

/** The node behind a network serves another chain than the config says: nothing is written. */
export class ChainIdMismatchError extends BaseError {
  constructor(network: string, expected: number, got: bigint, where: string) {
    super(`network "${network}": ${where} reports chainId ${got}, but the config says ${expected}; refusing to index it`, {
      name: 'ChainIdMismatchError',
    })
  }
}

/**
 * A verified era1 file disagrees with blocks already stored next to (or at) its heights: the
 * stored ones came from a node that was on another branch. History this old does not reorg, so
 * nothing is rewritten automatically, and the same file meets the same blocks again: not retried.
 */
export class Era1ConflictError extends NonRetryableError {
  /** What does not fit, in one line (recorded as the refusal's reason). */
  readonly reason: string
  constructor(network: string, file: string, reason: string) {
    super(`${network}: era1 file ${file} does not fit the stored chain (${reason}); not written`, { name: 'Era1ConflictError' })
    this.reason = `does not fit the stored chain: ${reason}`
  }
}

/** A job of a kind its network cannot run any more (its source is no longer configured). */
export class SourceMissingError extends NonRetryableError {
  constructor(message: string) {
    super(message, { name: 'SourceMissingError' })
  }
}

/** The node answered a block request with something else than the block asked for, or a malformed one. */
export class NodeAnswerError extends BaseError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { name: 'NodeAnswerError', ...options })
  }
}

/** A network could not start (era1 source unusable, the node never answered): the indexer stops. */
export class NetworkStartError extends BaseError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { name: 'NetworkStartError', ...options })
  }
}

/**
 * Which verification `error` is, if any: a whole era1 file, or blocks a node served (counted in
 * uncle_rpc_indexer_verification_failures_total either way).
 */
export function verificationFailure(error: unknown): 'era1 file' | 'blocks' | undefined {
  if (error instanceof Era1FileRefusedError) return 'era1 file'
  if (error instanceof BlocksRejectedError || error instanceof BlockVerificationError) return 'blocks'
  return undefined
}
