import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { expect, test } from 'vitest'
import { fixturePath, fixturesDir, readFixtureText } from './fixtures.js'

// fixtures/PROVENANCE.md names every fixture's source; its checksum table is what keeps that
// true: a fixture edited, added or removed without its row fails here.

function listedChecksums(): Map<string, { bytes: number; sha256: string }> {
  const rows = new Map<string, { bytes: number; sha256: string }>()
  for (const match of readFixtureText('PROVENANCE.md').matchAll(/^\| `([^`]+)` \| (\d+) \| `([0-9a-f]{64})` \|$/gm))
    rows.set(match[1]!, { bytes: Number(match[2]), sha256: match[3]! })
  return rows
}

function filesOnDisk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? filesOnDisk(path) : [relative(fixturesDir, path)]
  })
}

test('every fixture is listed in PROVENANCE.md, and every listed one is there', () => {
  const onDisk = filesOnDisk(fixturesDir)
    .filter((file) => file !== 'PROVENANCE.md')
    .sort()
  expect(onDisk.length).toBeGreaterThan(20)
  expect([...listedChecksums().keys()].sort()).toEqual(onDisk)
})

test('every fixture has the size and sha256 its provenance row gives', () => {
  for (const [file, listed] of listedChecksums()) {
    const bytes = readFileSync(fixturePath(file))
    expect({ file, bytes: statSync(fixturePath(file)).size, sha256: createHash('sha256').update(bytes).digest('hex') }).toEqual({ file, ...listed })
  }
})
