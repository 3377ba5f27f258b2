import { BaseError } from '@uncle-rpc/errors'

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
      { name: 'BlocksRejectedError' },
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
 * nothing is rewritten automatically.
 */
export class Era1ConflictError extends BaseError {
  constructor(network: string, file: string, reason: string) {
    super(`${network}: era1 file ${file} does not fit the stored chain (${reason}); not written`, { name: 'Era1ConflictError' })
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
