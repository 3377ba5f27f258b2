import { configDefaults, defineConfig } from 'vitest/config'
import { allTests, unitTests } from './vitest.projects.js'

// Two projects (docs/testing.md): `unit`, pure logic that starts no server, database or child
// process (`npm run test:unit`), and `integration`, every other test file. `npm test` runs both.
// Tests read the TypeScript sources: the workspace packages' "exports" serve src/ under the
// "uncle-rpc-source" condition (and dist/, the build, to Node). The rest are Vite's defaults.
const conditions = ['uncle-rpc-source', 'module', 'node', 'development|production']

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    // Integration tests start real processes (sample node, Postgres databases, Redis):
    // two cores, so keep parallelism modest and timeouts generous. Three workers finished the suite
    // sooner (6 min against 7) but starved the timing-bound tests: the Postgres failover's reads
    // missed their 250 ms deadline before the kill.
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: unitTests,
          // Threads start faster than forks; unitGuard makes listening, connecting and spawning throw.
          pool: 'threads',
          // A worker runs file after file without importing the modules again (the guard is
          // idempotent; no unit test keeps state across files): half the project's time.
          isolate: false,
          setupFiles: ['packages/testing/src/unitGuard.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: allTests,
          // Integration tests start the shipped command (apps/cli/bin → dist/): built first.
          globalSetup: ['packages/testing/src/buildDist.ts'],
          exclude: [...configDefaults.exclude, ...unitTests],
          pool: 'forks',
          // One process per worker for all its files, not one per file: starting a fork and importing
          // the test's modules (1-3 s) again for each of ~120 files left a worker idle a third of
          // the time. Tests keep no state across files: each opens and closes its own.
          isolate: false,
        },
      },
    ],
  },
})
