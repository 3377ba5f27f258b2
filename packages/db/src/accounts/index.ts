// Accounts: accounts, API keys, plans and limits, usage, sign-in sessions, emailed tokens,
// request limits. Written by the dashboard and the CLIs, read (keys) and written (usage) by the RPC
// service; it knows nothing of the chain index.
export { hashSecret, secretDigest } from './hashSecret.js'
export type { ApiKeyRow, CreateApiKeyParameters, InsertApiKeyParameters } from './queries/apiKeys.js'
export {
  createApiKey,
  findApiKey,
  generateApiKey,
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
export type { AccountTokenPurpose, ApiKeyPlan } from './schema.js'
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
