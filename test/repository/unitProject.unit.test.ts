import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { repositoryRoot } from '@uncle-rpc/testing'
import { expect, test } from 'vitest'
import { allTests, unitTests } from '../../vitest.projects.js'

// The unit project (`npm run test:unit`) holds only tests of pure logic, named `*.unit.test.ts`.
// Its setup file (packages/testing/src/unitGuard.ts, tested beside it) makes listening, connecting
// and spawning throw; this file checks that the project is exactly the files of that name and that
// no unit test imports the database or server helpers, directly or through a test helper (`_test/`).

/** A glob of vitest.projects.ts (`*`, `**` and literal text) as a regular expression over paths. */
function globToRegExp(glob: string): RegExp {
  const pattern = glob
    .split('**/')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*'))
    .join('(?:.*/)?')
  return new RegExp(`^${pattern}$`)
}

function testFiles(): string[] {
  const files: string[] = []
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(repositoryRoot, dir), { withFileTypes: true })) {
      if (entry.name === 'node_modules') continue
      const path = `${dir}/${entry.name}`
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.test.ts')) files.push(path)
    }
  }
  for (const top of ['apps', 'packages']) {
    for (const name of readdirSync(join(repositoryRoot, top))) {
      if (existsSync(join(repositoryRoot, top, name, 'src'))) walk(`${top}/${name}/src`)
    }
  }
  walk('bench')
  walk('test')
  return files
}

const files = testFiles()
const matching = (globs: string[]): string[] => files.filter((f) => globs.some((g) => globToRegExp(g).test(f)))

/** Modules whose use starts a server, a process or a connection, and the database test helper. */
const forbidden = new Set(['pg', 'ioredis', 'bullmq', 'ws', 'express', 'playwright-core', 'node:child_process', 'node:http', 'node:https', 'node:net', '@uncle-rpc/db/testing'])
/** What a unit test may take from @uncle-rpc/testing: fixtures, the repository root and the seeded random source, nothing that starts anything. */
const testingAllowed = new Set(['describeWithFixtures', 'fixturePath', 'fixturesDir', 'isCi', 'readFixtureJson', 'readFixtureJsonl', 'readFixtureText', 'repositoryRoot', 'requireFixtures', 'seededRandom'])

/** What `file` imports that a unit test may not, following relative imports into test helpers. */
function forbiddenImports(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return []
  seen.add(file)
  const text = readFileSync(join(repositoryRoot, file), 'utf8')
  const found: string[] = []
  for (const [, names, specifier] of text.matchAll(/^(?:import|export)\s+(?:type\s+)?([\s\S]*?)\s*from\s+'([^']+)'/gm)) {
    if (names!.startsWith('type ') || /^import\s+type\b/.test(names!)) continue
    const spec = specifier!
    if (forbidden.has(spec)) found.push(`${file} imports ${spec}`)
    if (spec === '@uncle-rpc/testing') {
      const imported = [...names!.matchAll(/(\w+)(?:\s+as\s+\w+)?/g)].map((m) => m[1]!).filter((n) => n !== 'type')
      for (const name of imported) if (!testingAllowed.has(name)) found.push(`${file} imports ${name} from @uncle-rpc/testing`)
    }
    if (spec.startsWith('.')) {
      const target = normalize(join(dirname(file), spec.replace(/\.js$/, '.ts')))
      if (target === 'packages/db/src/testing.ts') found.push(`${file} imports the database helper ${spec}`)
      else if (target.includes('/_test/') && existsSync(join(repositoryRoot, target))) found.push(...forbiddenImports(target, seen))
    }
  }
  return found
}

test('default: the unit project is every test file named `*.unit.test.ts`, and no other', () => {
  expect(files.length).toBeGreaterThan(100)
  expect(matching(unitTests)).toEqual(files.filter((f) => f.endsWith('.unit.test.ts')))
  expect(matching(unitTests).length).toBeGreaterThan(40)
  expect(matching(allTests)).toEqual(files)
})

/** The guard's own test, which must try what the guard refuses. */
const exempt = new Set(['packages/testing/src/unitGuard.unit.test.ts'])

test('behavior: no unit test imports the database or server helpers, nor a module that starts a server, process or connection', () => {
  expect(matching(unitTests).filter((f) => !exempt.has(f)).flatMap((f) => forbiddenImports(f))).toEqual([])
})

test('behavior: the check above finds such imports in integration tests', () => {
  const found = files.filter((f) => !matching(unitTests).includes(f)).filter((f) => forbiddenImports(f).length > 0)
  expect(found).toContain('packages/db/src/chain/queries/ranges.test.ts')
  expect(found).toContain('apps/rpc/src/transport/ws.test.ts')
})
