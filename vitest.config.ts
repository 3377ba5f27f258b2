import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['apps/*/src/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'bench/**/*.test.ts'],
    // Integration tests start real processes (sample node, Postgres databases, Redis):
    // two cores, so keep parallelism modest and timeouts generous.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
})
