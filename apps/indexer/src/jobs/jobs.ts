import { type Hex, quantityPattern, toQuantity } from '@uncle-rpc/chain'
import { z } from 'zod'

// Queue and job names, and the JSON-safe job payload. BullMQ stores job data as JSON,
// so block numbers travel as hex quantities and are parsed back at the worker's door.

/** One BullMQ queue per network, so networks never wait on each other. */
export function queueName(network: string): string {
  return `index-${network}`
}

/** The queue of a network's era1 epoch jobs. */
export function era1QueueName(network: string): string {
  return `index-${network}-era1`
}

export const rangeJobName = 'range'

const quantity = z.string().regex(quantityPattern)

const rangeJobSchema = z.object({ network: z.string().min(1), from: quantity, to: quantity })

/** A range of blocks `[from, to]` (inclusive) to fetch, verify and write. */
export type RangeJob = { network: string; from: bigint; to: bigint }

export type RangeJobData = z.infer<typeof rangeJobSchema>

export function encodeRangeJob(job: RangeJob): RangeJobData {
  return { network: job.network, from: toQuantity(job.from), to: toQuantity(job.to) }
}

export function decodeRangeJob(data: unknown): RangeJob {
  const parsed = rangeJobSchema.parse(data)
  return { network: parsed.network, from: BigInt(parsed.from as Hex), to: BigInt(parsed.to as Hex) }
}

export const epochJobName = 'era1-epoch'

const epochJobSchema = z.object({
  network: z.string().min(1),
  epoch: z.number().int().min(0),
  file: z.string().min(1),
  from: quantity,
  to: quantity,
})

/** One era1 file's blocks `[from, to]` (inclusive; within the network's range) to verify and write. */
export type EpochJob = { network: string; epoch: number; file: string; from: bigint; to: bigint }

export type EpochJobData = z.infer<typeof epochJobSchema>

export function encodeEpochJob(job: EpochJob): EpochJobData {
  return { network: job.network, epoch: job.epoch, file: job.file, from: toQuantity(job.from), to: toQuantity(job.to) }
}

export function decodeEpochJob(data: unknown): EpochJob {
  const parsed = epochJobSchema.parse(data)
  return { ...parsed, from: BigInt(parsed.from as Hex), to: BigInt(parsed.to as Hex) }
}

/** Stable job id of an epoch: one job per era1 file, whichever process plans it. */
export function epochJobId(job: Pick<EpochJob, 'epoch'>): string {
  return `era1-${job.epoch}`
}

/**
 * Stable job id for a range: planners that run at the same time (several indexer processes)
 * add the same ids, and BullMQ keeps one job per id.
 */
/** BullMQ's highest priority number (the lowest priority): 2^21 − 1. */
const lowestJobPriority = 2 ** 21 - 1

/**
 * A job's BullMQ priority from its first block (`unit`: the blocks of one range or epoch): lower
 * heights first. Note: without it a retried job goes behind every job waiting, so ranges that
 * failed in an outage stayed gaps until the end of the backfill; with it one comes back in its
 * place once its backoff (≤ 30 s, jobBackoff.ts) has passed.
 */
export function heightPriority(from: bigint, unit: bigint): number {
  const rank = from / (unit > 0n ? unit : 1n) + 1n
  return rank > BigInt(lowestJobPriority) ? lowestJobPriority : Number(rank)
}

export function rangeJobId(job: RangeJob): string {
  return `${job.from}-${job.to}`
}
