import { BaseError } from '../errors.js'
import type { Hex } from '../header.js'
import { epochSize } from './accumulator.js'
import { parseEra1FileName } from './era1FileName.js'
import type { EpochRoots } from './epochRoots.js'
import { Era1FileRefusedError, Era1VerificationError } from './errors.js'
import { openEra1 } from './openEra1.js'
import { type VerifyEra1Options, type VerifyEra1ReturnType, verifyEra1 } from './verifyEra1.js'

export type VerifyEra1FileParameters = VerifyEra1Options & {
  /** The whole file. */
  bytes: Uint8Array
  /** Its path or name: errors name it, and a standard name (`mainnet-00000-5ec1ffb8.era1`) must agree with the content. */
  file: string
  /**
   * Published roots (e.g. `publishedEpochRoots('mainnet')` or `loadEpochRoots(era1Roots)`): the
   * computed root must equal the root of the file's epoch. Undefined: only self-consistency is checked.
   */
  roots?: EpochRoots | undefined
}

export type VerifyEra1FileReturnType = VerifyEra1ReturnType & {
  file: string
  /** Epoch number (first block / 8192), undefined for a file that does not start an epoch. */
  epoch: number | undefined
  startNumber: bigint
  /** `published` when the root was checked against `roots`, `self` when only against the file itself. */
  checked: 'published' | 'self'
}

/**
 * Verifies a whole era1 file before anything is taken from it: e2store structure, snappy CRCs,
 * strict header/uncle decoding and hashes, sha3Uncles, parent links, the total-difficulty chain,
 * the accumulator against the file's own record, against `roots` (when given) and against the
 * file's standard name. Throws {@link Era1FileRefusedError} naming the file, epoch and what
 * differed (its `cause` is the specific error). Pure: the caller reads the file.
 */
export function verifyEra1File({ bytes, file, roots, ...options }: VerifyEra1FileParameters): VerifyEra1FileReturnType {
  const name = parseEra1FileName(file)
  let epoch = name?.epoch
  try {
    const era1 = openEra1(bytes)
    epoch = era1.startNumber % BigInt(epochSize) === 0n ? Number(era1.startNumber / BigInt(epochSize)) : undefined
    const nameMismatch = (part: 'epoch' | 'root', expected: string, got: string) =>
      new Era1VerificationError({ mismatch: { what: 'fileName', part, expected, got } })
    if (name !== undefined && name.epoch !== epoch) throw nameMismatch('epoch', String(epoch ?? `(starts at block ${era1.startNumber})`), String(name.epoch))
    let expectedRoot: Hex | undefined
    if (roots !== undefined) {
      if (epoch === undefined)
        throw new BaseError(`starts at block ${era1.startNumber}, not at an epoch boundary, so no published root applies`)
      expectedRoot = roots.roots[epoch]
      if (expectedRoot === undefined) throw new BaseError(`no published root for epoch ${epoch} in ${roots.source}`)
    }
    const result = verifyEra1(era1, { ...options, expectedRoot })
    if (name !== undefined && result.accumulatorRoot.slice(2, 10) !== name.rootPrefix)
      throw nameMismatch('root', result.accumulatorRoot.slice(2, 10), name.rootPrefix)
    return { ...result, file, epoch, startNumber: era1.startNumber, checked: roots === undefined ? 'self' : 'published' }
  } catch (error) {
    throw new Era1FileRefusedError({ file, epoch, cause: error })
  }
}
