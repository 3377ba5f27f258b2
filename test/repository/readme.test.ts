import { existsSync, readdirSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { repositoryRoot, runCli } from '@uncle-rpc/testing'
import { expect, test } from 'vitest'
import { demoNetworksConfig } from '@uncle-rpc/config'
import { firstColumn, headingAnchors, linkTargets, readDoc } from './_test/markdown.js'
import { startBanner } from '../../apps/cli/src/startBanner.js'

// Documentation claims that are cheap to check against the code: the command table (docs/cli.md)
// is the CLI's own command list, every table and view of the schema is documented
// (docs/database.md), the two commands are in README, and every link between the documents
// (docs/benchmarks/ too) leads to a file and heading that exist.

const readme = readDoc('README.md')
const docs = readdirSync(join(repositoryRoot, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`)
// The lab notebook: dated runs, each linked from its index and held to the same link rules.
const benchmarks = readdirSync(join(repositoryRoot, 'docs/benchmarks'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/benchmarks/${f}`)

test('default: the command table lists exactly the commands of `uncle-rpc --help`', async () => {
  const { code, stdout } = await runCli(['--help'])
  expect(code).toBe(0)
  const commands = [...stdout.slice(stdout.indexOf('Commands:')).matchAll(/^ {2}([a-z0-9-]+) {2,}/gm)].map((m) => m[1])
  expect(commands.length).toBeGreaterThan(5)
  expect(firstColumn(readDoc('docs/cli.md'), '# The command line').sort()).toEqual([...commands].sort())
})

test('default: every table and view of the schema files is documented in docs/database.md', () => {
  const schema = readDoc('packages/db/src/chain/schema.ts') + readDoc('packages/db/src/accounts/schema.ts')
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

test('behavior: docs/benchmarks/README.md links every run in docs/benchmarks/', () => {
  const runs = benchmarks.filter((f) => f !== 'docs/benchmarks/README.md')
  expect(runs.length).toBeGreaterThan(3)
  const linked = new Set(linkTargets(readDoc('docs/benchmarks/README.md')).map((t) => `docs/benchmarks/${t.split('#')[0]}`))
  expect(runs.filter((r) => !linked.has(r))).toEqual([])
})

test('behavior: every relative link in README.md and docs/ leads to a file and, with a #fragment, to a heading in it', () => {
  const broken: string[] = []
  for (const from of ['README.md', ...docs, ...benchmarks]) {
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

test('behavior: README\'s sample banner is what `npm start` prints (startBanner), and --help names the dashboard among what start runs', async () => {
  const banner = startBanner({
    networks: demoNetworksConfig().networks,
    sampleNode: new Set(['mainnet']),
    rpcBase: 'http://127.0.0.1:8545',
    key: '0f3c…',
    keyCreated: true,
    uncles: new Map([['mainnet', { blockNumber: 9996, blockHash: '0x…', index: 0 }]]),
    dashboardUrl: 'http://127.0.0.1:8547/',
    smtp: false,
    metrics: { rpc: 'http://127.0.0.1:…/metrics', indexer: 'http://127.0.0.1:…/metrics' },
    configPath: '/tmp/uncle-rpc-start-….json',
  })
  expect(readme).toContain(`\`\`\`\n${banner.trim()}\n\`\`\``)
  const { stdout } = await runCli(['--help'])
  expect(stdout).toMatch(/^ {2}start +.*dashboard/m)
})
