// The accounts module, for the RPC service, the dashboard and the CLIs: what an API key may do
// (its record, its restrictions and the store that loads them), how a password is hashed and which
// are refused, an account's usage report, and how user text is kept off terminals. The tables and SQL are
// @uncle-rpc/db/accounts'; this package holds the rules on top of them.
export type { AccessHeaders, AccessRequest, KeyAccess, KeyAccessSettings } from './keyAccess.js'
export { accessAllowed, accessRefusal, basicPassword, compileKeyAccess, rejectedBody } from './keyAccess.js'
export { emailPattern } from './email.js'
export type { KeySecret } from './keySecret.js'
export { newKeySecret } from './keySecret.js'
export type { KeyRecord, KeyStore } from './keyRecord.js'
export { createDbKeyStore } from './keyStore.js'
export { burnVerification, hashPassword, verifyPassword } from './password/password.js'
export { maxPasswordLength, minPasswordLength, passwordProblem } from './password/passwordRule.js'
export { escapeForTerminal, hasUnsafeCharacters } from './text/unsafeText.js'
export type { AccountUsageReport } from './usage/accountUsage.js'
export { accountUsage, usageReportDays } from './usage/accountUsage.js'
