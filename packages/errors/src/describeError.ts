/**
 * An error for an operator's terminal: its message, then each cause on a line of its own
 * (`caused by: <name> [<SQLSTATE>]: <message>`), so that a wrapper such as drizzle's
 * `Failed query: …` shows what Postgres (or the pooler before it) said. Causes are followed
 * through `cause` up to 8 deep; a cause's message already shown is not repeated.
 */
export function describeError(error: unknown): string {
  const lines = [error instanceof Error ? error.message : String(error)]
  let cause = error instanceof Error ? error.cause : undefined
  for (let depth = 0; cause !== undefined && cause !== null && depth < 8; depth++) {
    const { name, message, code, detail, hint } = cause as { name?: unknown; message?: unknown; code?: unknown; detail?: unknown; hint?: unknown }
    const text = typeof message === 'string' ? message : String(cause)
    const label = [typeof name === 'string' ? name : 'cause', typeof code === 'string' ? `[${code}]` : ''].filter((s) => s !== '').join(' ')
    const shown = lines.some((line) => line.includes(text))
    lines.push(`  caused by: ${label}${shown ? ' (above)' : `: ${text}`}`)
    if (typeof detail === 'string' && detail !== '') lines.push(`    detail: ${detail}`)
    if (typeof hint === 'string' && hint !== '') lines.push(`    hint: ${hint}`)
    cause = cause instanceof Error ? cause.cause : undefined
  }
  return lines.join('\n')
}
