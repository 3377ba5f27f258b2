// `npm run build` (and `npm ci`, through `prepare`): compiles every app's and package's
// TypeScript, apps/*/src and packages/*/src, to JavaScript in the dist/ folder beside it, file for
// file. Left out: tests and benches (*.test.ts, *.bench.ts), _test/ folders and test helpers
// (test*.ts, e.g. packages/db's testing.ts). The package "exports" serve dist/ to Node.
//
// esbuild's per-file transform (the one tsx applied at run time, without keepNames), not a
// bundle: dist/ mirrors src/, so paths taken from import.meta.url (migrations, static files, the
// era1 thread) mean the same from either. Types are checked by `npm run check`, not here.
// Plain JavaScript, so that it runs on any Node that npm runs on.
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

// Note: esbuild is a dev dependency: `npm ci --omit=dev` on a clone has nothing to build with.
const { build } = await import('esbuild').catch((error) => {
  process.stderr.write(`build: esbuild is not installed (${error.code ?? error.message}): build after a full \`npm ci\`; the Dockerfile shows how to ship without dev dependencies\n`)
  process.exit(1)
})

const root = fileURLToPath(new URL('..', import.meta.url))

/** Whether `file` (relative to a src folder) is shipped: TypeScript that is not a test, a bench or a test helper. */
function isShipped(file) {
  const parts = file.split('/')
  const name = parts.at(-1)
  if (!name.endsWith('.ts') || name.endsWith('.d.ts') || parts.includes('_test') || name.startsWith('test')) return false
  return !name.endsWith('.test.ts') && !name.endsWith('.bench.ts')
}

const started = performance.now()
const entryPoints = []
const folders = []
for (const group of ['apps', 'packages']) {
  for (const name of readdirSync(join(root, group))) {
    const src = join(root, group, name, 'src')
    if (!existsSync(src)) continue
    // Note: compiled into a fresh folder that then replaces dist/ whole: a source deleted or renamed
    // leaves no stale module behind, and a process starting meanwhile (a test run beside this
    // one) finds dist/ complete, the old or the new.
    const next = join(root, group, name, `dist.${process.pid}`)
    folders.push({ next, dist: join(root, group, name, 'dist') })
    for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
      if (isShipped(file)) entryPoints.push({ in: join(src, file), out: join(next, file.slice(0, -'.ts'.length)) })
    }
  }
}

try {
  await build({
    entryPoints,
    outdir: root,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    bundle: false,
    logLevel: 'warning',
  })
  for (const { next, dist } of folders) {
    const old = `${dist}.old.${process.pid}`
    if (existsSync(dist)) renameSync(dist, old)
    renameSync(next, dist)
    rmSync(old, { recursive: true, force: true })
  }
} finally {
  for (const { next } of folders) rmSync(next, { recursive: true, force: true })
}
process.stdout.write(`build: ${entryPoints.length} files compiled to dist/ in ${Math.round(performance.now() - started)} ms (${relative(process.cwd(), root) || '.'})\n`)
