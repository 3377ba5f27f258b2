export type { CreateDbParameters, CreateDbReturnType, Db, DbLogger, DbOrTx, DbTimeouts, Tx } from './client.js'
export { createDb, defaultDbTimeouts, queryTimeoutMessage, useUnnamedStatements } from './client.js'
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
export type { ApiKeyRow, CreateApiKeyParameters, InsertApiKeyParameters } from './accounts/queries/apiKeys.js'
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
} from './accounts/queries/apiKeys.js'
export type { KeyPolicyRow, PlanRow, SetApiKeyLimitsParameters, UpdatePlanParameters } from './accounts/queries/plans.js'
export { findKeyPolicy, listKeyPolicies, listPlans, setApiKeyFailover, setApiKeyLimits, updatePlan } from './accounts/queries/plans.js'
export type { UsageCounter, UsageCounts, UsageDelta, UsageRow } from './accounts/queries/usage.js'
export { addUsage, addUsageCounts, admittedOnDay, listUsage, usageCounters, zeroUsageCounts } from './accounts/queries/usage.js'
export { blockKnown } from './chain/queries/blockKnown.js'
export type { BlockUncleCount } from './chain/queries/blockUncleCounts.js'
export { blockUncleCountByHash, canonicalBlockUncleCount } from './chain/queries/blockUncleCounts.js'
export type { BlockWithUncles, InsertBlocksWithUnclesParameters, InsertBlocksWithUnclesReturnType } from './chain/queries/blocks.js'
export { countBlocks, insertBlocksWithUncles, latestIndexedBlock } from './chain/queries/blocks.js'
export { copyBlocksWithUncles } from './chain/queries/copyBlocks.js'
export type { Era1Refusal } from './chain/queries/era1Refusals.js'
export { clearEra1Refusal, listEra1Refusals, recordEra1Refusal } from './chain/queries/era1Refusals.js'
export { getDatabaseIdentity, readDatabaseIdentity } from './chain/queries/databaseIdentity.js'
export type { TableChecksums } from './chain/queries/checksums.js'
export { tableChecksums } from './chain/queries/checksums.js'
export type { RegisterNetworkParameters, RegisterNetworkReturnType } from './chain/queries/networks.js'
export { listNetworks, registerNetwork } from './chain/queries/networks.js'
export type { BlockRange } from './chain/queries/ranges.js'
export { blocksIndexedSince, compactIndexedRanges, findGaps, listIndexedRanges, markRangeIndexed } from './chain/queries/ranges.js'
export type { CanonicalBlockRef, RecordReorgParameters, ReorgEvent } from './chain/queries/reorgs.js'
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
} from './chain/queries/reorgs.js'
export type { GetUncleParameters, GetUncleReturnType } from './chain/queries/uncles.js'
export { countUncles, getUncle, getUncles, type GetUnclesParameters, storedUncleIndex } from './chain/queries/uncles.js'
export { getUncleAnswers, type GetUncleAnswersParameters, type UncleAnswer } from './chain/queries/uncleAnswers.js'
export { latestUncle } from './chain/queries/latestUncle.js'
export { notifyRangeIndexed, parseRangeIndexed, rangeIndexedChannel, uncleBlockPrefixes, uncleBlockSpan } from './chain/queries/uncleBlocks.js'
export type { AccountTokenPurpose, ApiKeyPlan } from './accounts/schema.js'
export { blocks, blocksHex, databaseIdentity, era1Refusals, indexedRanges, networks, reorgs, uncles, unclesHex } from './chain/schema.js'
export {
  accountTokenPurposes,
  accountTokens,
  accounts,
  apiKeyPlans,
  apiKeys,
  maxAllowlistEntries,
  operatorEmail,
  plans,
  requestLimits,
  sessions,
  signInFailures,
  upgradeRequests,
  usageDaily,
  usageHourly,
  usageMethods,
} from './accounts/schema.js'
export type { AccountRow, SessionRow, UpgradeRequestRow } from './accounts/queries/accounts.js'
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
} from './accounts/queries/accounts.js'
export { deleteAccountTokens, insertAccountToken, pruneAccountTokens, takeAccountToken } from './accounts/queries/accountTokens.js'
export type { RequestLimitPolicy } from './accounts/queries/requestLimits.js'
export { hitRequestLimit, pruneRequestLimits } from './accounts/queries/requestLimits.js'
export type { SignInLockPolicy } from './accounts/queries/signInFailures.js'
export { clearSignInFailures, pruneSignInFailures, recordSignInFailure, signInWaitSeconds } from './accounts/queries/signInFailures.js'
export type { AccountKeyRow, KeySettingsPatch } from './accounts/queries/accountKeys.js'
export {
  copyKeySettings,
  countLiveAccountKeys,
  findAccountKey,
  keySettingsForCopy,
  listAccountKeys,
  revokeAccountKey,
  setAccountKeySecret,
  updateAccountKey,
} from './accounts/queries/accountKeys.js'
export type { AccountUsageParameters, HourlyUsageDelta, UsagePoint } from './accounts/queries/usageHourly.js'
export type { MethodTotal, MethodUsageDelta, MethodUsageRow } from './accounts/queries/usageMethods.js'
export { accountMethodUsage, addMethodUsage, listMethodUsage, otherMethod } from './accounts/queries/usageMethods.js'
export { accountDailyUsage, accountHourlyUsage, addDailyAndHourlyUsage, addHourlyUsage, pruneHourlyUsage } from './accounts/queries/usageHourly.js'
