import type { Hex } from '@uncle-rpc/chain'
import type { UncleAnswer } from '@uncle-rpc/db/chain'

// What the read engine looks up and how a lookup is given up: the store's side of the methods'
// context (methods/context.ts re-exports these for the methods).

/** A stored uncle's answer as JSON text (keys alphabetical, `totalDifficulty: null`), and the number of the block that includes it. */
export type FoundUncle = UncleAnswer

/**
 * Gives up a lookup not sent yet: a light AbortSignal, one per lookup (AbortController's
 * EventTarget, its listeners and their garbage were 5% of a cold answer's CPU in a profile).
 */
export class LookupCancel {
  aborted = false
  reason: unknown = undefined
  /** Told once, when abort() is called (the store drops the lookup if it is still queued). */
  onAbort: ((reason: unknown) => void) | undefined = undefined

  abort(reason: unknown): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = reason
    this.onAbort?.(reason)
  }
}

/** The storage lookup behind the method: one primary-key read. A `cancel` aborted before the read is sent drops it. */
export type FindUncle = (params: { network: string; blockHash: Hex; index: number; cancel?: LookupCancel | undefined }) => Promise<FoundUncle | null>

/** Whether the block with this hash is indexed (a known block makes a null answer authoritative). */
export type BlockKnown = (params: { network: string; blockHash: Hex }) => Promise<boolean>
