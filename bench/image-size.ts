// Size of the image's final stage, measured without Docker: the files the Dockerfile's final stage
// copies (read from this checkout, built) put into a temporary folder, `npm ci --omit=dev
// --ignore-scripts` run there, as the stage does; prints the file count and bytes, and checks the
// folder runs (`uncle-rpc --help`). The base image (node:24-bookworm-slim) is not counted.
//
//   npx tsx bench/image-size.ts [--repo <checkout>] [--keep]   (--repo: another checkout's Dockerfile and files)

import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import { repositoryRoot } from '@uncle-rpc/testing'
import { finalStageFiles } from '../test/repository/_test/dockerfile.js'

const { values } = parseArgs({ options: { repo: { type: 'string' }, keep: { type: 'boolean', default: false } } })
const root = values.repo ?? repositoryRoot

/** Files (not symbolic links) under `dir` and their bytes. */
function count(dir: string): { files: number; bytes: number } {
  let files = 0
  let bytes = 0
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    files++
    bytes += statSync(join(entry.parentPath, entry.name)).size
  }
  return { files, bytes }
}

const image = mkdtempSync(join(tmpdir(), 'uncle-rpc-image-'))
try {
  for (const [path, local] of finalStageFiles(readFileSync(join(root, 'Dockerfile'), 'utf8'), root)) {
    mkdirSync(dirname(join(image, path)), { recursive: true })
    copyFileSync(local, join(image, path))
  }
  const copied = count(image)
  const started = performance.now()
  execFileSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: image, stdio: ['ignore', 'ignore', 'inherit'] })
  const installMs = performance.now() - started
  const total = count(image)
  const modules = count(join(image, 'node_modules'))
  const help = execFileSync(process.execPath, ['apps/cli/bin/uncle-rpc.js', '--help'], { cwd: image, encoding: 'utf8' })
  if (!help.startsWith('uncle-rpc:')) throw new Error(`uncle-rpc --help in the image folder printed: ${help}`)
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`
  process.stdout.write(`final stage of ${join(root, 'Dockerfile')} (without the base image):\n`)
  process.stdout.write(`  copied files       ${copied.files} files, ${mb(copied.bytes)}\n`)
  process.stdout.write(`  node_modules       ${modules.files} files, ${mb(modules.bytes)} (npm ci --omit=dev: ${(installMs / 1000).toFixed(1)} s)\n`)
  process.stdout.write(`  total              ${total.files} files, ${total.bytes} bytes (${mb(total.bytes)})\n`)
  process.stdout.write(`  uncle-rpc --help   runs${values.keep ? `; kept in ${image}` : ''}\n`)
} finally {
  if (!values.keep) rmSync(image, { recursive: true, force: true })
}
