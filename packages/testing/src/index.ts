export {
  describeWithFixtures,
  fixturePath,
  fixturesDir,
  readFixtureJson,
  readFixtureJsonl,
  readFixtureText,
  requireFixtures,
} from './fixtures.js'
export type { CliProcess } from './processes.js'
export { cliBin, repositoryRoot, runCli, spawnCli } from './processes.js'
export type { PostgresServer } from './postgresServer.js'
export { childrenOf, freePort, startPostgresServer, startStreamingReplica } from './postgresServer.js'
export type { PgBouncer, PgBouncerOptions, PgBouncerPoolMode } from './pgBouncer.js'
export { findPgBouncer, startPgBouncer } from './pgBouncer.js'
export type { TcpProxy, TcpProxyOptions } from './tcpProxy.js'
export { createTcpProxy } from './tcpProxy.js'
export { findTool, isCi, requireTool } from './tools.js'
export type { LoopbackServer } from './haproxy.js'
export { renderLoopbackConfig } from './haproxy.js'
export type { RedisServer } from './redisServer.js'
export { startRedisServer } from './redisServer.js'
export type { SentinelGroup } from './sentinelGroup.js'
export { sentinelTools, startSentinelGroup } from './sentinelGroup.js'
export { seededRandom } from './seededRandom.js'
