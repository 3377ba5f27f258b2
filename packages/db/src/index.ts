// The shared plumbing of the one database: the client, migrations, column codecs, read replicas and
// their errors (a context's own errors are its own: the chain's writes throw from @uncle-rpc/db/chain). The tables and queries live by context: `@uncle-rpc/db/chain` (the chain index) and
// `@uncle-rpc/db/accounts` (accounts, keys, plans, usage); neither imports the other.
export type { CreateDbParameters, CreateDbReturnType, Db, DbLogger, DbOrTx, DbTimeouts, Tx } from './client.js'
export { boundedTransaction, createDb, defaultDbTimeouts, queryTimeoutMessage, useUnnamedStatements } from './client.js'
export { bigintToNumeric, byteaToHex, hexToBytea, numericToBigint, toArrayLiteral } from './columns.js'
export type { CreateReadReplicasParameters, ReadReplicas, ReplicaProbe, ReplicaState } from './readReplicas.js'
export { createReadReplicas, judgeReplica, lagFromSamples, parseLsn } from './readReplicas.js'
export type { PgErrorFields } from './errors.js'
export { InvalidColumnValueError, MigrationError } from './errors.js'
export type { MigrateDatabaseParameters, MigrateDatabaseReturnType } from './migrate.js'
export type { MigrateTimeouts } from './migrate.js'
export { defaultMigrateTimeouts, migrateDatabase, migrationsFolder } from './migrate.js'
