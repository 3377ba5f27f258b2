import { configDefaults, defineConfig } from 'vitest/config'
import { allTests, unitTests } from './vitest.projects.js'

// Two projects (docs/testing.md): `unit`, pure logic that starts no server, database or child
// process (`npm run test:unit`), and `integration`, every other test file. `npm test` runs both.
export default defineConfig({
  test: {
    // Integration tests start real processes (sample node, Postgres databases, Redis):
    // two cores, so keep parallelism modest and timeouts generous.
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
          setupFiles: ['packages/testing/src/unitGuard.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: allTests,
          exclude: [...configDefaults.exclude, ...unitTests],
          pool: 'forks',
        },
      },
    ],
  },
})
