import { runCli } from '@uncle-rpc/testing'
import { expect, test } from 'vitest'
import { firstColumn, readDoc } from './_test/markdown.js'

// Documentation claims that are cheap to check against the code: the command table (docs/cli.md)
// is the CLI's own command list, every table and view of the schema is documented
// (docs/database.md) and the two commands are in README.

const readme = readDoc('README.md')

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
