// The chain index: networks, blocks, uncles, indexed ranges, reorgs, era1 refusals. The indexer
// writes it, the RPC service reads it; it knows nothing of accounts.
export { blockKnown } from './queries/blockKnown.js'
export type { BlockUncleCount } from './queries/blockUncleCounts.js'
export { blockUncleCountByHash, canonicalBlockUncleCount } from './queries/blockUncleCounts.js'
export type { BlockWithUncles, InsertBlocksWithUnclesParameters, InsertBlocksWithUnclesReturnType } from './queries/blocks.js'
export { countBlocks, insertBlocksWithUncles, latestIndexedBlock } from './queries/blocks.js'
export { copyBlocksWithUncles } from './queries/copyBlocks.js'
export { CanonicalBlockConflictError, DatabaseWriteError, UnknownNetworkError } from './errors.js'
export type { Era1Refusal } from './queries/era1Refusals.js'
export { clearEra1Refusal, listEra1Refusals, recordEra1Refusal } from './queries/era1Refusals.js'
export { getDatabaseIdentity, readDatabaseIdentity } from './queries/databaseIdentity.js'
export type { TableChecksums } from './queries/checksums.js'
export { tableChecksums } from './queries/checksums.js'
export type { RegisterNetworkParameters, RegisterNetworkReturnType } from './queries/networks.js'
export { listNetworks, registerNetwork } from './queries/networks.js'
export type { BlockRange } from './queries/ranges.js'
export { blocksIndexedSince, compactIndexedRanges, findGaps, listIndexedRanges, markRangeIndexed } from './queries/ranges.js'
export type { CanonicalBlockRef, RecordReorgParameters, ReorgEvent } from './queries/reorgs.js'
export {
  canonicalBlocks,
  latestReorgId,
  lockNetworkWrites,
  recordReorg,
  reorgStats,
  reorgsSince,
  replacedBlocks,
  setBlocksCanonical,
  unmarkRangeIndexed,
} from './queries/reorgs.js'
export type { GetUncleParameters, GetUncleReturnType } from './queries/uncles.js'
export { countUncles, getUncle, getUncles, type GetUnclesParameters, storedUncleIndex } from './queries/uncles.js'
export { getUncleAnswers, type GetUncleAnswersParameters, type UncleAnswer } from './queries/uncleAnswers.js'
export { latestUncle } from './queries/latestUncle.js'
export { notifyRangeIndexed, parseRangeIndexed, rangeIndexedChannel, uncleBlockPrefixes, uncleBlockSpan } from './queries/uncleBlocks.js'
export { blocks, blocksHex, databaseIdentity, era1Refusals, indexedRanges, networks, reorgs, uncles, unclesHex } from './schema.js'
