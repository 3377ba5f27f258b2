import { Worker } from 'node:worker_threads'
import { BaseError } from '@uncle-rpc/errors'
import { Era1FileRefusedError, hashesReady } from '@uncle-rpc/chain'
import { ThreadError } from './threadError.js'
import { type VerifiedEpoch, type VerifyEpochParameters, verifyEpoch } from './verifyEpoch.js'
import type { VerifyResponse } from './verifyWorker.js'

/** Verifies era1 files off the main thread (or on it, with `threads: 0`). */
export type VerifyPool = {
  verify(params: VerifyEpochParameters): Promise<VerifiedEpoch>
  close(): Promise<void>
}

/** The verification thread died or failed otherwise than by refusing the file; the cause is what it threw. */
export class VerifyThreadError extends BaseError {
  constructor(message: string, cause: unknown) {
    super(message, { name: 'VerifyThreadError', cause })
  }
}

/**
 * `threads` verification threads (0: on the main thread). Each takes one file at a time; a file
 * goes to the thread with the fewest files waiting. Verification is CPU-bound: with it off the
 * main thread, decoding epoch n+1 overlaps writing epoch n, and with two threads a second core
 * verifies whenever Postgres leaves it free.
 */
export function createVerifyPool({ threads }: { threads: number }): VerifyPool {
  if (threads === 0)
    return {
      verify: async (params) => {
        await hashesReady()
        return verifyEpoch(params)
      },
      close: async () => {},
    }
  // Note: started now, not on first use: loading the sources into a thread takes a while.
  const slots = Array.from({ length: threads }, () => createVerifyThread())
  return {
    verify(params) {
      const slot = slots.reduce((best, s) => (s.waiting() < best.waiting() ? s : best))
      return slot.verify(params)
    },
    async close() {
      await Promise.all(slots.map((s) => s.close()))
    },
  }
}

type VerifyThread = VerifyPool & { waiting(): number }

/** One verification thread, restarted on next use if it dies; requests queue in the thread. */
function createVerifyThread(): VerifyThread {
  let worker: Worker | undefined
  let nextId = 1
  const pending = new Map<number, { resolve: (v: VerifiedEpoch) => void; reject: (e: Error) => void }>()
  const start = () => {
    const w = new Worker(new URL('./verifyWorker.js', import.meta.url))
    w.on('message', (response: VerifyResponse) => {
      const waiter = pending.get(response.id)
      if (!waiter) return
      pending.delete(response.id)
      if ('ok' in response) waiter.resolve(response.ok)
      else if ('refused' in response) {
        const { file, epoch, cause } = response.refused
        waiter.reject(new Era1FileRefusedError({ file, epoch, cause: new ThreadError(cause) }))
      }
      else waiter.reject(new VerifyThreadError(response.error.message, new ThreadError(response.error)))
    })
    w.on('error', (error) => {
      for (const waiter of pending.values()) waiter.reject(new VerifyThreadError(`era1 verification thread failed: ${error.message}`, error))
      pending.clear()
      worker = undefined
    })
    w.unref()
    return w
  }
  worker = start()
  return {
    waiting: () => pending.size,
    verify(params) {
      worker ??= start()
      const id = nextId++
      const w = worker
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject })
        // Note: the file's bytes move to the thread (transferred, not copied).
        const bytes = params.bytes.byteOffset === 0 && params.bytes.byteLength === params.bytes.buffer.byteLength ? params.bytes : params.bytes.slice()
        w.postMessage({ id, params: { ...params, bytes } }, [bytes.buffer as ArrayBuffer])
      })
    },
    async close() {
      await worker?.terminate()
      worker = undefined
    },
  }
}
