import { asc, eq } from 'drizzle-orm'
import type { DbOrTx } from '../../client.js'
import { networks } from '../schema.js'

export type RegisterNetworkParameters = { name: string; chainId: bigint }
export type RegisterNetworkReturnType = {
  /** The chain id stored for the network: the one given, unless it was registered earlier with another. */
  chainId: bigint
  /** True if this call registered the network. */
  created: boolean
  /** Set when the stored chain id differs from the one given: the caller must refuse to index. */
  mismatch: { stored: bigint; given: bigint } | null
}

/**
 * Registers `name` with `chainId` on first use; afterwards reports the chain id stored then,
 * so a restart against another chain is caught before anything is written. Safe under concurrency.
 */
export async function registerNetwork(
  db: DbOrTx,
  { name, chainId }: RegisterNetworkParameters,
): Promise<RegisterNetworkReturnType> {
  const inserted = await db
    .insert(networks)
    .values({ name, chainId })
    .onConflictDoNothing()
    .returning({ chainId: networks.chainId })
  if (inserted.length > 0) return { chainId, created: true, mismatch: null }
  const [row] = await db.select({ chainId: networks.chainId }).from(networks).where(eq(networks.name, name))
  // Note: rows are never deleted, so the row that blocked the insert is still there.
  const stored = row?.chainId ?? chainId
  return { chainId: stored, created: false, mismatch: stored === chainId ? null : { stored, given: chainId } }
}

/** Every registered network, by name. */
export async function listNetworks(db: DbOrTx): Promise<{ name: string; chainId: bigint; createdAt: Date }[]> {
  return db.select().from(networks).orderBy(asc(networks.name))
}
