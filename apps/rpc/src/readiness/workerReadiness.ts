import type { Worker } from 'node:cluster'
import { adminReadyBody, type Readiness, type ReadinessReport } from './readiness.js'

// With --workers N the primary serves the admin port but has no database or Redis of its own: its
// /ready asks every worker over the cluster's IPC channel and is ready only when all of them are.

const askType = 'uncle-rpc:ready?'
const answerType = 'uncle-rpc:ready'
type Ask = { type: typeof askType; id: number }
type Answer = { type: typeof answerType; id: number; report: ReadinessReport }

/** In a cluster worker: answers the primary's readiness questions with this worker's checks. */
export function answerReadinessRequests(readiness: Readiness): void {
  process.on('message', (message: Partial<Ask>) => {
    if (message?.type !== askType || typeof message.id !== 'number') return
    const { id } = message
    void readiness().then((report) => process.send?.({ type: answerType, id, report } satisfies Answer))
  })
}

let nextId = 1

/** In the cluster primary: every serving worker's readiness, combined; a worker silent for `timeoutMs` counts as not ready. */
export async function askWorkersReadiness(workers: readonly Worker[], timeoutMs: number): Promise<{ ready: boolean; body: unknown }> {
  const id = nextId++
  const reports = await Promise.all(
    workers.map(
      (worker) =>
        new Promise<{ pid: number | undefined; report: ReadinessReport | undefined }>((resolve) => {
          const onMessage = (message: Partial<Answer>) => {
            if (message?.type !== answerType || message.id !== id || message.report === undefined) return
            done(message.report)
          }
          const timer = setTimeout(() => done(undefined), timeoutMs)
          const done = (report: ReadinessReport | undefined) => {
            clearTimeout(timer)
            worker.off('message', onMessage)
            resolve({ pid: worker.process.pid, report })
          }
          worker.on('message', onMessage)
          worker.send({ type: askType, id } satisfies Ask)
        }),
    ),
  )
  const ready = reports.length > 0 && reports.every((r) => r.report?.ready === true)
  const degraded = [...new Set(reports.flatMap((r) => (r.report === undefined ? ['worker'] : r.report.degraded)))]
  return {
    ready,
    body: {
      status: ready ? 'ready' : 'not ready',
      degraded,
      workers: reports.map(({ pid, report }) => ({ pid, ...(report === undefined ? { status: 'no answer' } : adminReadyBody(report)) })),
    },
  }
}
