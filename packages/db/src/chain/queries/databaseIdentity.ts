import { databaseIdentity } from '../schema.js'
import type { DbOrTx } from '../../client.js'

/** This database's identity (database_identity), or null when no indexer has asked for it yet. Reads only. */
export async function readDatabaseIdentity(db: DbOrTx): Promise<string | null> {
  const [row] = await db.select({ id: databaseIdentity.id }).from(databaseIdentity)
  return row?.id ?? null
}

/**
 * This database's random identity (database_identity), made by the first caller: a database
 * dropped and created again, or another server's of the same name, has another.
 */
export async function getDatabaseIdentity(db: DbOrTx): Promise<string> {
  // Note: concurrent first callers both insert; the loser's row is dropped by the conflict and both read the winner's.
  await db.insert(databaseIdentity).values({}).onConflictDoNothing()
  const id = await readDatabaseIdentity(db)
  if (id === null) throw new Error('database_identity has no row after insert')
  return id
}
