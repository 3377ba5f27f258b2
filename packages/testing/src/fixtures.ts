import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, test } from 'vitest'

// The one way tests find the shared, real-chain fixtures. They live beside the repository
// (../shared/fixtures) and are never copied into it. UNCLE_RPC_FIXTURES overrides the place.

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')

/** The fixtures directory: `$UNCLE_RPC_FIXTURES`, or `../shared/fixtures` beside the repository. */
export const fixturesDir = process.env.UNCLE_RPC_FIXTURES ?? join(repoRoot, '..', 'shared', 'fixtures')

/** True when running under CI, where a missing fixture is a failure rather than a skip. */
export const isCi = Boolean(process.env.CI)

/** Absolute path of a fixture file, relative to the fixtures directory. */
export function fixturePath(relative: string): string {
  return join(fixturesDir, relative)
}

/**
 * Whether the named fixtures are present. Under CI a missing one throws (a failure);
 * elsewhere it prints what is needed and returns false, so callers can skip.
 */
export function haveFixtures(...relatives: string[]): boolean {
  const missing = relatives.filter((r) => !existsSync(fixturePath(r)))
  if (missing.length === 0) return true
  const message = `fixtures missing in ${fixturesDir}: ${missing.join(', ')} (set UNCLE_RPC_FIXTURES to the shared/fixtures directory)`
  if (isCi) throw new Error(message)
  process.stderr.write(`skipping: ${message}\n`)
  return false
}

/** Reads a JSON fixture. */
export function readFixtureJson<T = unknown>(relative: string): T {
  return JSON.parse(readFileSync(fixturePath(relative), 'utf8')) as T
}

/** Reads a JSON-lines fixture, one value per non-empty line. */
export function readFixtureJsonl<T = unknown>(relative: string): T[] {
  return readFileSync(fixturePath(relative), 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as T)
}

/** Reads a fixture's raw text (for byte-for-byte comparisons). */
export function readFixtureText(relative: string): string {
  return readFileSync(fixturePath(relative), 'utf8')
}

/**
 * `describe` for tests that need the shared fixtures. When they are missing (outside CI) the
 * suite is reported as skipped and its body never runs, so nothing reads absent files.
 */
export function describeWithFixtures(relatives: readonly string[], name: string, body: () => void): void {
  if (haveFixtures(...relatives)) describe(name, body)
  else
    describe.skip(`${name} (needs ${relatives.join(', ')} in ${fixturesDir})`, () => test('needs the shared fixtures', () => {}))
}
