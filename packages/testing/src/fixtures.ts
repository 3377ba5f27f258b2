import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe } from 'vitest'

// The one way tests find the real-chain fixtures: `fixtures/` at the repository's root, each file
// named with its source and checksum in fixtures/PROVENANCE.md. They ship with the repository, so
// a missing one is a broken checkout and fails the test that needs it; nothing is ever skipped.

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')

/** The fixtures directory: `fixtures/` at the repository's root. */
export const fixturesDir = join(repoRoot, 'fixtures')

/** Absolute path of a fixture file, relative to the fixtures directory. */
export function fixturePath(relative: string): string {
  return join(fixturesDir, relative)
}

/** Throws, naming every missing file, unless all the named fixtures are present. */
export function requireFixtures(...relatives: string[]): void {
  const missing = relatives.filter((r) => !existsSync(fixturePath(r)))
  if (missing.length > 0) throw new Error(`fixtures missing in ${fixturesDir}: ${missing.join(', ')} (they ship with the repository: restore them with git)`)
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

/** `describe` for a suite that reads the named fixtures: fails at collection when one is missing. */
export function describeWithFixtures(relatives: readonly string[], name: string, body: () => void): void {
  requireFixtures(...relatives)
  describe(name, body)
}
