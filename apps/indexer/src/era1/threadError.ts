import { BaseError } from '@uncle-rpc/errors'

// An error crosses to and from the verification thread as plain data (structured clone keeps
// neither the class nor, reliably, the cause); rebuilt on the other side with its causes and stacks.

/** An error as data: what a log of it shows, and its cause likewise. */
export type ThreadErrorData = { name: string; message: string; shortMessage: string; details?: string | undefined; stack?: string | undefined; cause?: ThreadErrorData | undefined }

/** How many causes deep an error is carried (a cycle or a very long chain is cut). */
const maxDepth = 8

/** `error` and its causes as data that posts between threads. */
export function toThreadErrorData(error: unknown, depth = 0): ThreadErrorData {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), shortMessage: String(error) }
  return {
    name: error.name,
    message: error.message,
    shortMessage: error instanceof BaseError ? error.shortMessage : error.message,
    details: error instanceof BaseError ? error.details : undefined,
    stack: error.stack,
    cause: error.cause === undefined || depth + 1 >= maxDepth ? undefined : toThreadErrorData(error.cause, depth + 1),
  }
}

/** An error raised in the verification thread, rebuilt here: its name, message, stack and causes. */
export class ThreadError extends BaseError {
  constructor(data: ThreadErrorData) {
    super(data.shortMessage, { name: data.name, cause: data.cause && new ThreadError(data.cause), ...(data.details === undefined ? {} : { details: data.details }) })
    if (data.stack !== undefined) this.stack = data.stack
  }
}
