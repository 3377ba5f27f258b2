// The accounts module: what an API key may do (its record, restrictions and the store that loads
// them), for the RPC service, the dashboard and the CLIs. The tables and SQL are
// @uncle-rpc/db/accounts'; this package holds the rules on top of them.
export type { AccessHeaders, AccessRequest, KeyAccess, KeyAccessSettings } from './keyAccess.js'
export { accessAllowed, accessRefusal, basicPassword, compileKeyAccess, rejectedBody } from './keyAccess.js'
export type { KeyRecord, KeyStore } from './keyRecord.js'
export { createDbKeyStore } from './keyStore.js'
