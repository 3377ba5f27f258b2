export type { CreateDbParameters, CreateDbReturnType, Db, DbLogger, DbOrTx, DbTimeouts, Tx } from './client.js'
export { boundedTransaction, createDb, defaultDbTimeouts, queryTimeoutMessage, useUnnamedStatements } from './client.js'
export { bigintToNumeric, byteaToHex, hexToBytea, numericToBigint, toArrayLiteral } from './columns.js'
export type { CreateReadReplicasParameters, ReadReplicas, ReplicaProbe, ReplicaState } from './readReplicas.js'
export { createReadReplicas, judgeReplica, lagFromSamples, parseLsn } from './readReplicas.js'
export type { PgErrorFields } from './errors.js'
export {
  CanonicalBlockConflictError,
  DatabaseWriteError,
  InvalidColumnValueError,
  MigrationError,
  UnknownNetworkError,
} from './errors.js'
export type { MigrateDatabaseParameters, MigrateDatabaseReturnType } from './migrate.js'
export type { MigrateTimeouts } from './migrate.js'
export { defaultMigrateTimeouts, migrateDatabase, migrationsFolder } from './migrate.js'
export type { ApiKeyRow, CreateApiKeyParameters, InsertApiKeyParameters } from './queries/apiKeys.js'
export {
  createApiKey,
  findApiKey,
  generateApiKey,
  hashApiKey,
  insertApiKey,
  isApiKeyPlan,
  keyPrefixLength,
  listApiKeys,
  revokeApiKey,
  setApiKeyPlan,
  touchApiKeys,
} from './queries/apiKeys.js'
export type { KeyPolicyRow, PlanRow, SetApiKeyLimitsParameters, UpdatePlanParameters } from './queries/plans.js'
export { findKeyPolicy, listKeyPolicies, listPlans, setApiKeyFailover, setApiKeyLimits, updatePlan } from './queries/plans.js'
export type { UsageCounter, UsageCounts, UsageDelta, UsageRow } from './queries/usage.js'
export { addUsage, addUsageCounts, admittedOnDay, listUsage, usageCounters, zeroUsageCounts } from './queries/usage.js'
export { blockKnown } from './queries/blockKnown.js'
export type { BlockUncleCount } from './queries/blockUncleCounts.js'
export { blockUncleCountByHash, canonicalBlockUncleCount } from './queries/blockUncleCounts.js'
export type { BlockWithUncles, InsertBlocksWithUnclesParameters, InsertBlocksWithUnclesReturnType } from './queries/blocks.js'
export { countBlocks, insertBlocksWithUncles, latestIndexedBlock } from './queries/blocks.js'
export { copyBlocksWithUncles } from './queries/copyBlocks.js'
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
export type { AccountTokenPurpose, ApiKeyPlan } from './schema.js'
export {
  accountTokenPurposes,
  accountTokens,
  accounts,
  apiKeyPlans,
  apiKeys,
  blocks,
  blocksHex,
  databaseIdentity,
  era1Refusals,
  indexedRanges,
  maxAllowlistEntries,
  networks,
  operatorEmail,
  plans,
  reorgs,
  requestLimits,
  sessions,
  signInFailures,
  uncles,
  unclesHex,
  upgradeRequests,
  usageDaily,
  usageHourly,
  usageMethods,
} from './schema.js'
export type { AccountRow, SessionRow, UpgradeRequestRow } from './queries/accounts.js'
export {
  deleteAccountSessions,
  deleteExpiredSessions,
  deleteSession,
  findAccountByEmail,
  findAccountById,
  findSession,
  insertAccount,
  insertSession,
  insertUpgradeRequest,
  listAccounts,
  listUpgradeRequests,
  lockAccount,
  markEmailVerified,
  normalizeEmail,
  setAccountDisabled,
  setAccountPassword,
  setAccountPlan,
} from './queries/accounts.js'
export { deleteAccountTokens, insertAccountToken, pruneAccountTokens, takeAccountToken } from './queries/accountTokens.js'
export type { RequestLimitPolicy } from './queries/requestLimits.js'
export { hitRequestLimit, pruneRequestLimits } from './queries/requestLimits.js'
export type { SignInLockPolicy } from './queries/signInFailures.js'
export { clearSignInFailures, pruneSignInFailures, recordSignInFailure, signInWaitSeconds } from './queries/signInFailures.js'
export type { AccountKeyRow, KeySettingsPatch } from './queries/accountKeys.js'
export {
  copyKeySettings,
  countLiveAccountKeys,
  findAccountKey,
  keySettingsForCopy,
  listAccountKeys,
  revokeAccountKey,
  setAccountKeySecret,
  updateAccountKey,
} from './queries/accountKeys.js'
export type { AccountUsageParameters, HourlyUsageDelta, UsagePoint } from './queries/usageHourly.js'
export type { MethodTotal, MethodUsageDelta, MethodUsageRow } from './queries/usageMethods.js'
export { accountMethodUsage, addMethodUsage, listMethodUsage, otherMethod } from './queries/usageMethods.js'
export { accountDailyUsage, accountHourlyUsage, addDailyAndHourlyUsage, addHourlyUsage, pruneHourlyUsage } from './queries/usageHourly.js'
