import { execFileSync, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { cliBin, repositoryRoot } from '@uncle-rpc/testing'
import { expect, test } from 'vitest'

// Node 24 (LTS) is the floor: package.json's "engines", and `uncle-rpc` on an older Node stops
// with an error naming the version it needs (before loading anything that might not run there).
// Note: spawnSync with a timeout: code that ignored the floor would start a server and never exit.

const engines = (JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node
const versionError = /^uncle-rpc: Node\.js 24 or newer is required; this is Node\.js 20\.\d+\.\d+ \(.+\)\n$/

/** A node on PATH older than 24 (CI's machine node, before Node 24 goes first on PATH), if any. */
function olderNode(): string | undefined {
  const found = spawnSync('which', ['-a', 'node'], { encoding: 'utf8' }).stdout.split('\n').filter((path) => path !== '')
  return found.find((path) => Number(execFileSync(path, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' })) < 24)
}

test('default: engines and the command ask for the same Node', () => {
  expect(engines).toBe('>=24')
  expect(readFileSync(cliBin, 'utf8')).toContain('const required = 24\n')
  expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24)
})

test('error: on a Node reporting 20.19.0, uncle-rpc --help prints the version needed and exits 1', () => {
  const pretend = 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.19.0"})'
  const run = spawnSync(process.execPath, ['--import', pretend, cliBin, '--help'], { encoding: 'utf8', timeout: 30_000 })
  expect({ status: run.status, stdout: run.stdout }).toEqual({ status: 1, stdout: '' })
  expect(run.stderr).toMatch(versionError)
})

const older = olderNode()
test.skipIf(older === undefined || !/^v20\./.test(execFileSync(older, ['--version'], { encoding: 'utf8' })))('error: run by a real Node 20, uncle-rpc rpc prints the version needed and exits 1', () => {
  const run = spawnSync(older!, [cliBin, 'rpc', '--port', '0'], { encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' })
  expect({ status: run.status, stdout: run.stdout }).toEqual({ status: 1, stdout: '' })
  expect(run.stderr).toMatch(versionError)
})
