import { type FailoverPolicy, type ForwardCall, IndexUnavailableError } from './failoverPolicy.js'
import { createDeadline, createReadGate, type ReadGate, readPauseMs, ReadsPausedError } from '../protection/readStallGuard.js'
import type { MethodContext } from './context.js'

// The database reads of the uncle family beside eth_getUncleByBlockHashAndIndex (the count methods
// and the by-number lookup), under the same guards as that method's reads: the deadline that tells
// a stalled database from a busy pool, the gate that stops asking a failing one, and the failover
// policy of the key when the index cannot answer.

export type FamilyReads = {
  /** `query` under the deadline and the gate; a failed or late read throws what the failover policy says (recording `call` for the partner). */
  read<T>(context: MethodContext, call: ForwardCall, query: () => Promise<T>): Promise<T>
  /** A null for a block the index does not hold: authoritative only when the call may not be forwarded. */
  unindexed(context: MethodContext, call: ForwardCall): null
}

export type CreateFamilyReadsParameters = {
  /** As the uncle method's deadline (createDeadline). */
  deadlineMs: number
  /** As the uncle method's gate (shared); default one of its own. */
  gate?: ReadGate | undefined
  /** Told about every failed or late database read. */
  onLocalFailure?: ((error: unknown) => void) | undefined
}

/** The guarded reads shared by the uncle family's methods (one deadline and one gate for them all). */
export function createFamilyReads({ deadlineMs, gate = createReadGate({ cooldownMs: readPauseMs(deadlineMs) }), onLocalFailure }: CreateFamilyReadsParameters): FamilyReads {
  const withDeadline = createDeadline(deadlineMs)
  const paused = new ReadsPausedError(readPauseMs(deadlineMs))

  function unavailable(failover: FailoverPolicy | undefined, call: ForwardCall, error: unknown): unknown {
    onLocalFailure?.(error)
    if (failover === undefined) return error
    if (failover.kind === 'forward') failover.need(call)
    return new IndexUnavailableError(failover.kind, { cause: error })
  }

  return {
    async read(context, call, query) {
      if (!gate.admit()) throw unavailable(context.failover, call, paused)
      const resumed = gate.resumed
      try {
        const value = await withDeadline(query())
        gate.succeeded()
        return value
      } catch (error) {
        gate.failed(resumed)
        throw unavailable(context.failover, call, error)
      }
    },
    unindexed(context, call) {
      if (context.failover?.kind === 'forward') context.failover.need(call)
      return null
    },
  }
}
