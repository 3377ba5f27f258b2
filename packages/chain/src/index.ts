export type { BlockRange } from './blockRanges.js'
export { coversRange, gapsOf, holesBelowTop, indexedHeight, mergeRanges } from './blockRanges.js'
export {
  headerFromRlpFields,
  headerFromRpc,
  headerToRlpFields,
  hexDataPattern,
  presentHeaderFields,
  quantityFromRpc,
  quantityPattern,
  quantityToRlpHex,
  type RpcHeader,
  rpcHeaderWithRlp,
} from './codecs.js'
export type { EpochAccumulator, HeaderRecord } from './era1/accumulator.js'
export { createEpochAccumulator, epochAccumulatorRoot, epochSize } from './era1/accumulator.js'
export type { Era1Block, Era1BlockPayloads } from './era1/decodeEra1Block.js'
export { decodeEra1Block } from './era1/decodeEra1Block.js'
export type { Era1RawBlock } from './era1/decodeEra1RawBlock.js'
export { decodeEra1RawBlock, era1BlockFromRaw } from './era1/decodeEra1RawBlock.js'
export type { Era1FileName } from './era1/era1FileName.js'
export { era1FileName, parseEra1FileName } from './era1/era1FileName.js'
export type { EpochRoots } from './era1/epochRoots.js'
export { Era1RootsFileError, loadEpochRoots, mainnetEpochRoots, parseEpochRoots, publishedEpochRoots } from './era1/epochRoots.js'
export type { Era1Mismatch } from './era1/errors.js'
export {
  Era1BlockRangeError,
  Era1FileRefusedError,
  Era1FormatError,
  Era1VerificationError,
  SnappyFrameError,
} from './era1/errors.js'
export type { CreateEra1MirrorParameters, Era1Mirror, Era1MirrorFile } from './era1/mirror/createEra1Mirror.js'
export { createEra1Mirror } from './era1/mirror/createEra1Mirror.js'
export type { DownloadFileParameters } from './era1/mirror/downloadFile.js'
export { downloadFile, Era1MirrorError } from './era1/mirror/downloadFile.js'
export { era1NamesIn, nameForEpoch, parseChecksums } from './era1/mirror/mirrorIndex.js'
export type { Era1File } from './era1/openEra1.js'
export { openEra1 } from './era1/openEra1.js'
export type { BlockIndexPlace } from './era1/blockIndex.js'
export { locateBlockIndex } from './era1/blockIndex.js'
export type { VerifyEra1Options, VerifyEra1ReturnType } from './era1/verifyEra1.js'
export { verifyEra1 } from './era1/verifyEra1.js'
export type { VerifyEra1FileParameters, VerifyEra1FileReturnType } from './era1/verifyEra1File.js'
export { verifyEra1File } from './era1/verifyEra1File.js'
export type { Era1BlockInput, Era1Writer, Era1WriterOptions } from './era1/writeEra1.js'
export { createEra1Writer, encodeSnappyFramed, writeEra1 } from './era1/writeEra1.js'
export { InvalidHeaderError, InvalidQuantityError } from './errors.js'
export { bigIntToMinimalBytes, bytesEqual, bytesToBigInt, bytesToHexString, concatBytes, hexStringToBytes } from './bytes.js'
export { hashesReady, keccak256Bytes, sha256Pair } from './hashes.js'
export { hashHeader, hashUncles, headerRlp } from './hashHeader.js'
export type { HeaderBytes } from './headerBytes.js'
export { decodeHeaderBytes, encodeHeaderBytes, encodeRlpListOf, headerFieldIndex, headerFromBytes } from './headerBytes.js'
export type { RlpItem } from './rlp/readRlpItem.js'
export { RlpDecodeError, readRlpItem, readRlpList, writeRlpPrefix, writeRlpString } from './rlp/readRlpItem.js'
export type { BlockHeader, FieldKind, HashedHeader, HeaderFieldName, Hex } from './header.js'
export { headerFields, requiredFieldCount } from './header.js'
export type { ToRpcBlockParameters, ToRpcUncleOptions } from './rpcFormat.js'
export { rpcUncleJson, toQuantity, toRpcBlock, toRpcHeaderFields, toRpcUncle, type UncleJsonPart, uncleJsonParts } from './rpcFormat.js'
export { hexByteLength, rlpListLength, uncleSize, uncleSizeFromRlpLength } from './uncleSize.js'
export type { VerifyMismatch } from './verifyBlock.js'
export { BlockVerificationError, verifyBlock } from './verifyBlock.js'
