import { BaseError } from '@uncle-rpc/errors'
import type { z } from 'zod'

// Turns zod issues into one line per problem, each starting with the path of the bad key
// (`networks[0].chainId: expected a positive integer`), the way operators read config errors.

/** A configuration (environment or file) that is missing, unreadable or invalid; `problems` has one line per bad key. */
export class ConfigError extends BaseError {
  readonly source: string
  readonly problems: readonly string[]
  constructor({ source, problems, cause }: { source: string; problems: readonly string[]; cause?: unknown }) {
    super(`Invalid configuration in ${source}:\n${problems.map((p) => `  ${p}`).join('\n')}`, {
      name: 'ConfigError',
      cause,
    })
    this.source = source
    this.problems = problems
  }
}

const identifierRe = /^[A-Za-z_$][\w$]*$/

/** `['networks', 0, 'chainId']` → `networks[0].chainId`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`
    else if (typeof part === 'string' && identifierRe.test(part)) out += out === '' ? part : `.${part}`
    else out += `[${JSON.stringify(String(part))}]`
  }
  return out === '' ? '(root)' : out
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] as number
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number
      row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length] as number
}

/** The known key an unknown one was probably meant to be (`rpcURL` → `rpcUrl`), if any is close. */
export function suggestKey(unknown: string, known: readonly string[]): string | undefined {
  const lower = unknown.toLowerCase()
  const exact = known.find((k) => k.toLowerCase() === lower)
  if (exact) return exact
  let best: { key: string; distance: number } | undefined
  for (const key of known) {
    const distance = editDistance(lower, key.toLowerCase())
    if (distance <= 2 && (!best || distance < best.distance)) best = { key, distance }
  }
  return best?.key
}

/**
 * One line per issue, `path: message`. Unknown keys get a line each, named by their own path,
 * with a suggestion when `knownKeys(path)` lists a close match.
 */
export function formatIssues(
  issues: readonly z.core.$ZodIssue[],
  knownKeys: (path: readonly PropertyKey[]) => readonly string[] = () => [],
): string[] {
  const lines: string[] = []
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const suggestion = suggestKey(key, knownKeys(issue.path))
        lines.push(`${formatPath([...issue.path, key])}: unknown key${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`)
      }
    } else {
      lines.push(`${formatPath(issue.path)}: ${issue.message}`)
    }
  }
  return lines
}
