import { BaseError } from '@uncle-rpc/errors'
import { bytesToHexString } from './bytes.js'
import { keccak256Bytes } from './hashes.js'
import { encodeHeaderBytes, encodeRlpListOf } from './headerBytes.js'
import type { HashedHeader, Hex } from './header.js'

const emptyUnclesHash = bytesToHexString(keccak256Bytes(Uint8Array.of(0xc0)))

export type VerifyMismatch =
  | { what: 'blockHash'; expected: Hex; computed: Hex }
  | { what: 'uncleHash'; index: number; expected: Hex; computed: Hex }
  | { what: 'sha3Uncles'; expected: Hex; computed: Hex }
  | { what: 'uncleCount'; expected: number; got: number }
  | { what: 'uncleHashList'; index: number; expected: Hex; got: Hex }

/** A block or one of its uncles does not hash to what the node claimed. */
export class BlockVerificationError extends BaseError {
  readonly blockNumber: bigint
  readonly blockHash: Hex
  readonly mismatch: VerifyMismatch
  constructor({ blockNumber, blockHash, mismatch }: { blockNumber: bigint; blockHash: Hex; mismatch: VerifyMismatch }) {
    super(`Block ${blockNumber} (${blockHash}) failed verification: ${describe(mismatch)}`, {
      name: 'BlockVerificationError',
    })
    this.blockNumber = blockNumber
    this.blockHash = blockHash
    this.mismatch = mismatch
  }
}

function describe(m: VerifyMismatch): string {
  switch (m.what) {
    case 'blockHash':
      return `header hashes to ${m.computed}, not to its claimed hash ${m.expected}`
    case 'uncleHash':
      return `uncle ${m.index} hashes to ${m.computed}, not to its claimed hash ${m.expected}`
    case 'sha3Uncles':
      return `uncle list hashes to ${m.computed}, but sha3Uncles is ${m.expected}`
    case 'uncleCount':
      return `block lists ${m.expected} uncles but ${m.got} uncle headers were given`
    case 'uncleHashList':
      return `block lists uncle ${m.index} as ${m.expected} but the uncle header is ${m.got}`
  }
}

/**
 * Checks a block and its uncles against each other and against their hashes:
 * the block hash recomputes, each uncle hash recomputes, keccak256(RLP(uncles)) equals
 * the block's `sha3Uncles`, and (when the block lists uncle hashes) they match in count and order.
 * `rlp` may bring the headers' RLP already encoded (as {@link rpcHeaderWithRlp} reads them).
 * Throws {@link BlockVerificationError} naming the block and what differed.
 */
export function verifyBlock(
  block: HashedHeader & { uncles?: readonly Hex[] | undefined },
  uncles: readonly HashedHeader[],
  rlp?: { block: Uint8Array; uncles: readonly Uint8Array[] },
): void {
  const fail = (mismatch: VerifyMismatch): never => {
    throw new BlockVerificationError({ blockNumber: block.number, blockHash: block.hash, mismatch })
  }
  const hash = (encoded: Uint8Array) => bytesToHexString(keccak256Bytes(encoded))
  const uncleRlps = rlp?.uncles ?? uncles.map(encodeHeaderBytes)
  const computed = hash(rlp?.block ?? encodeHeaderBytes(block))
  if (computed !== block.hash) fail({ what: 'blockHash', expected: block.hash, computed })
  if (block.uncles && block.uncles.length !== uncles.length)
    fail({ what: 'uncleCount', expected: block.uncles.length, got: uncles.length })
  uncles.forEach((uncle, index) => {
    const uncleHash = hash(uncleRlps[index]!)
    if (uncleHash !== uncle.hash) fail({ what: 'uncleHash', index, expected: uncle.hash, computed: uncleHash })
    const listed = block.uncles?.[index]
    if (listed !== undefined && listed.toLowerCase() !== uncleHash)
      fail({ what: 'uncleHashList', index, expected: listed.toLowerCase() as Hex, got: uncleHash })
  })
  // Note: most blocks have no uncles; keccak256(RLP([])) is a constant.
  const sha3 = uncleRlps.length === 0 ? emptyUnclesHash : hash(encodeRlpListOf(uncleRlps))
  if (sha3 !== block.sha3Uncles) fail({ what: 'sha3Uncles', expected: block.sha3Uncles, computed: sha3 })
}
