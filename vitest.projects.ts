/** Every test file: the unit project's and the integration project's together. */
export const allTests: string[] = ['apps/*/src/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'bench/**/*.test.ts', 'test/**/*.test.ts']

/**
 * The unit project (`npm run test:unit`): test files of pure logic that start no server, database or
 * child process. Every other test file is in the integration project; `npm test` runs both.
 * packages/testing/src/unitGuard.ts makes a unit test that listens, connects or spawns fail, and
 * test/repository/unitProject.test.ts checks that none imports the database or server helpers.
 * App tests are named by file name under their app, so a file moved within its app stays here.
 */
export const unitTests: string[] = [
  'test/repository/unitProject.test.ts',
  'apps/cli/src/**/liveStatus.test.ts',
  'apps/dashboard/src/**/errorForLog.test.ts',
  'apps/dashboard/src/**/passwordRule.test.ts',
  'apps/dashboard/src/**/unsafeText.test.ts',
  'apps/indexer/src/errors.test.ts',
  'apps/indexer/src/**/failure.test.ts',
  'apps/indexer/src/**/threadError.test.ts',
  'apps/indexer/src/**/jobBackoff.test.ts',
  'apps/indexer/src/**/planRanges.test.ts',
  'apps/indexer/src/**/requestMany.test.ts',
  'apps/indexer/src/**/statusView.test.ts',
  'apps/rpc/src/**/keyAccess.test.ts',
  'apps/rpc/src/**/args.test.ts',
  'apps/rpc/src/**/breaker.test.ts',
  'apps/rpc/src/**/failoverPolicy.test.ts',
  'apps/rpc/src/**/cache.test.ts',
  'apps/rpc/src/**/hashFilter.test.ts',
  'apps/rpc/src/**/readGuards.test.ts',
  'apps/rpc/src/**/httpBody.test.ts',
  'apps/rpc/src/**/network.test.ts',
  'apps/rpc/src/**/headMemo.test.ts',
  'apps/sample-node/src/**/args.test.ts',
  'apps/sample-node/src/**/faults.test.ts',
  'apps/sample-node/src/**/methods.test.ts',
  'apps/sample-node/src/**/hashIndex.test.ts',
  'apps/sample-node/src/**/liveChain.test.ts',
  'apps/sample-node/src/**/headerRlp.test.ts',
  'apps/sample-node/src/**/syntheticChain.test.ts',
  'apps/sample-node/src/**/writeSyntheticEra1.test.ts',
  'packages/chain/src/*.test.ts',
  'packages/chain/src/era1/*.test.ts',
  'packages/config/src/cli.test.ts',
  'packages/config/src/env.test.ts',
  'packages/config/src/issues.test.ts',
  'packages/config/src/logger.test.ts',
  'packages/config/src/networksConfig.test.ts',
  'packages/config/src/prettyLog.test.ts',
  'packages/config/src/redisKeyPrefix.test.ts',
  'packages/config/src/redisUrl.test.ts',
  'packages/db/src/columns.test.ts',
  'packages/errors/src/**/*.test.ts',
  'packages/db/src/readReplicas.test.ts',
  'packages/jsonrpc/src/**/*.test.ts',
  'packages/metrics/src/**/*.test.ts',
  'packages/process/src/**/untilSignal.test.ts',
  'packages/process/src/**/wakeableSleep.test.ts',
  'packages/testing/src/fixtures.test.ts',
  'packages/testing/src/unitGuard.test.ts',
  'bench/soak/summary.test.ts',
]
