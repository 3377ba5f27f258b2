import { execFile } from 'node:child_process'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, test } from 'vitest'

// `npm run check` runs dependency-cruiser with the repository's rules over the real tree; this
// runs the same rules over a small tree that breaks them on purpose.
const run = promisify(execFile)
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const config = join(repoRoot, '.dependency-cruiser.cjs')
const depcruise = join(repoRoot, 'node_modules/.bin/depcruise')

async function cruise(cwd: string, paths: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run(depcruise, [...paths, '--config', config, '--output-type', 'err'], { cwd })
    return { code: 0, output: stdout }
  } catch (error) {
    const failed = error as { code: number; stdout: string }
    return { code: failed.code, output: failed.stdout }
  }
}

test('behavior: an import cycle and a forbidden package edge fail the check', async () => {
  const { code, output } = await cruise(join(repoRoot, 'test/repository/_test/boundaries'), ['packages'])
  expect(code).not.toBe(0)
  expect(output).toContain('no-circular')
  expect(output).toMatch(/jsonrpc-config-only-errors: packages\/jsonrpc\/src\/leak\.ts → packages\/db\/src\/table\.ts/)
})

test('behavior: the byte-level wire importing the JSON-RPC core fails the check', async () => {
  const { code, output } = await cruise(join(repoRoot, 'test/repository/_test/boundaries'), ['packages'])
  expect(code).not.toBe(0)
  expect(output).toMatch(/wire-knows-no-jsonrpc: packages\/wire\/src\/frame\.ts → packages\/jsonrpc\/src\/leak\.ts/)
})

test('behavior: the chain index and accounts importing each other fail the check, both ways', async () => {
  const { code, output } = await cruise(join(repoRoot, 'test/repository/_test/boundaries'), ['packages'])
  expect(code).not.toBe(0)
  expect(output).toMatch(/accounts-not-to-chain-index: packages\/db\/src\/accounts\/keys\.ts → packages\/db\/src\/chain\/blocks\.ts/)
  expect(output).toMatch(/accounts-not-to-chain-index: packages\/accounts\/src\/plan\.ts → packages\/db\/src\/chain\/blocks\.ts/)
  expect(output).toMatch(/chain-index-not-to-accounts: packages\/db\/src\/chain\/uncles\.ts → packages\/db\/src\/accounts\/keys\.ts/)
})

test('behavior: app source importing another app fails the check; a test doing so does not', async () => {
  const { code, output } = await cruise(join(repoRoot, 'test/repository/_test/boundaries'), ['apps'])
  expect(code).not.toBe(0)
  expect(output).toMatch(/apps-share-through-packages: apps\/dashboard\/src\/keys\.ts → apps\/rpc\/src\/keys\.ts/)
  expect(output).not.toContain('_test/endToEnd.ts')
})

test('behavior: within the rpc, the read engine importing the methods, or a protection importing a layer above it, fails the check', async () => {
  const { code, output } = await cruise(join(repoRoot, 'test/repository/_test/boundaries'), ['apps'])
  expect(code).not.toBe(0)
  expect(output).toMatch(/rpc-reads-below-methods: apps\/rpc\/src\/reads\/store\.ts → apps\/rpc\/src\/methods\/context\.ts/)
  expect(output).toMatch(/rpc-protection-is-low: apps\/rpc\/src\/protection\/breaker\.ts → apps\/rpc\/src\/reads\/store\.ts/)
})
