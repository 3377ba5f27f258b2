import { existsSync, readdirSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { repositoryRoot, runCli } from '@uncle-rpc/testing'
import { expect, test } from 'vitest'
import { firstColumn, headingAnchors, linkTargets, readDoc } from './_test/markdown.js'

// Documentation claims that are cheap to check against the code: the command table (docs/cli.md)
// is the CLI's own command list, every table and view of the schema is documented
// (docs/database.md), the two commands are in README, and every link between the documents
// leads to a file and heading that exist.

const readme = readDoc('README.md')
const docs = readdirSync(join(repositoryRoot, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`)

test('default: the command table lists exactly the commands of `uncle-rpc --help`', async () => {
  const { code, stdout } = await runCli(['--help'])
  expect(code).toBe(0)
  const commands = [...stdout.slice(stdout.indexOf('Commands:')).matchAll(/^ {2}([a-z0-9-]+) {2,}/gm)].map((m) => m[1])
  expect(commands.length).toBeGreaterThan(5)
  expect(firstColumn(readDoc('docs/cli.md'), '# The command line').sort()).toEqual([...commands].sort())
})

test('default: every table and view in schema.ts is documented in docs/database.md', () => {
  const schema = readDoc('packages/db/src/schema.ts')
  const names = [...schema.matchAll(/pg(?:Table|View)\(\s*'([a-z_0-9]+)'/g)].map((m) => m[1]!)
  expect(names.length).toBeGreaterThan(8)
  const database = readDoc('docs/database.md')
  const documented = [...firstColumn(database, '## Tables'), ...firstColumn(database, '## Views')]
  expect([...documented].sort()).toEqual([...names].sort())
})

test('default: the two commands a newcomer runs', () => {
  expect(readme).toContain('npm start')
  expect(readme).toContain('npm test')
})

test('behavior: README links every document in docs/', () => {
  expect(docs.length).toBeGreaterThan(5)
  const linked = new Set(linkTargets(readme).map((t) => t.split('#')[0]))
  expect(docs.filter((d) => !linked.has(d))).toEqual([])
})

test('behavior: every relative link in README.md and docs/ leads to a file and, with a #fragment, to a heading in it', () => {
  const broken: string[] = []
  for (const from of ['README.md', ...docs]) {
    for (const target of linkTargets(readDoc(from))) {
      if (/^[a-z]+:/.test(target)) continue
      const [path, fragment] = target.split('#') as [string, string | undefined]
      const file = path === '' ? from : normalize(join(dirname(from), path))
      if (!existsSync(join(repositoryRoot, file))) {
        broken.push(`${from}: ${target} (no file ${file})`)
      } else if (fragment !== undefined && !headingAnchors(readDoc(file)).has(fragment)) {
        broken.push(`${from}: ${target} (no heading #${fragment} in ${file})`)
      }
    }
  }
  expect(broken).toEqual([])
})
