import { and, asc, eq } from 'drizzle-orm'
import type { DbOrTx } from '../../client.js'
import { era1Refusals } from '../schema.js'

/** An era1 file the indexer refused: which epoch, which file, and what differed. */
export type Era1Refusal = { network: string; epoch: number; file: string; reason: string; refusedAt: Date }

/** Records (or replaces) the refusal of `network`'s epoch `epoch`. */
export async function recordEra1Refusal(
  db: DbOrTx,
  { network, epoch, file, reason }: Omit<Era1Refusal, 'refusedAt'>,
): Promise<void> {
  await db
    .insert(era1Refusals)
    .values({ network, epoch, file, reason })
    .onConflictDoUpdate({ target: [era1Refusals.network, era1Refusals.epoch], set: { file, reason, refusedAt: new Date() } })
}

/** Forgets the refusal of an epoch (it has been indexed since, from a good file). */
export async function clearEra1Refusal(db: DbOrTx, { network, epoch }: { network: string; epoch: number }): Promise<void> {
  await db.delete(era1Refusals).where(and(eq(era1Refusals.network, network), eq(era1Refusals.epoch, epoch)))
}

/** `network`'s refused era1 files, by epoch. */
export async function listEra1Refusals(db: DbOrTx, { network }: { network: string }): Promise<Era1Refusal[]> {
  return db.select().from(era1Refusals).where(eq(era1Refusals.network, network)).orderBy(asc(era1Refusals.epoch))
}
