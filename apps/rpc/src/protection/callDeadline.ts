import { DeadlineError } from '../errors.js'

/**
 * `promise`, or a DeadlineError once `ms` passed. The work itself goes on (its own bounds, such as
 * the pool's query timeout, end it); only the caller stops waiting.
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(what, ms)), ms)
  })
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer))
}
