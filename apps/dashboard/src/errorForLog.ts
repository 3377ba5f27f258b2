/** What the dashboard logs of an unexpected error. */
export type LoggedError = { type: string; code?: string | number; stack: string; cause?: LoggedError | string }

/**
 * An error as the dashboard logs it: its name, code and stack frames, and the same for its cause
 * down the chain, but never a message: a database error's message quotes the query's parameters
 * (password hashes, emails).
 */
export function errorForLog(error: unknown, depth = 0): LoggedError | string {
  if (!(error instanceof Error)) return typeof error
  const code = (error as { code?: unknown }).code
  const frames = (error.stack ?? '')
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .map((line) => line.trim())
  return {
    type: error.name,
    ...((typeof code === 'string' || typeof code === 'number') && { code }),
    stack: frames.join('\n'),
    ...(error.cause !== undefined && depth < 8 && { cause: errorForLog(error.cause, depth + 1) }),
  }
}
