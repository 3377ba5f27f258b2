import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { repositoryRoot, runCli } from '@uncle-rpc/testing'
import { expect, test } from 'vitest'

// README claims that are cheap to check against the code: the command table is the CLI's own
// command list, every table and view of the schema is documented, and the two commands are there.

const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8')

/** The rows of the first Markdown table after `heading`, as their first cells without backticks. */
function firstColumn(heading: string): string[] {
  const at = readme.indexOf(`\n${heading}\n`)
  expect(at, `README has a "${heading}" heading`).toBeGreaterThan(-1)
  const lines = readme.slice(at).split('\n')
  const start = lines.findIndex((l) => l.startsWith('|'))
  const rows: string[] = []
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break
    rows.push(line.split('|')[1]!.trim().replaceAll('`', ''))
  }
  return rows
}

test('default: the command table lists exactly the commands of `uncle-rpc --help`', async () => {
  const { code, stdout } = await runCli(['--help'])
  expect(code).toBe(0)
  const commands = [...stdout.slice(stdout.indexOf('Commands:')).matchAll(/^ {2}([a-z0-9-]+) {2,}/gm)].map((m) => m[1])
  expect(commands.length).toBeGreaterThan(5)
  expect(firstColumn('## The command line').sort()).toEqual([...commands].sort())
})

test('default: every table and view in schema.ts is documented in the SQL section', () => {
  const schema = readFileSync(join(repositoryRoot, 'packages/db/src/schema.ts'), 'utf8')
  const names = [...schema.matchAll(/pg(?:Table|View)\(\s*'([a-z_0-9]+)'/g)].map((m) => m[1]!)
  expect(names.length).toBeGreaterThan(8)
  const documented = [...firstColumn('### Tables'), ...firstColumn('### Views')]
  expect([...documented].sort()).toEqual([...names].sort())
})

test('default: the two commands a newcomer runs', () => {
  expect(readme).toContain('npm start')
  expect(readme).toContain('npm test')
})
