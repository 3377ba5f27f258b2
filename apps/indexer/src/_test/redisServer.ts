// Test-only: the private redis-server of packages/testing (stop, start, freeze, thaw).
export { type RedisServer, startRedisServer } from '@uncle-rpc/testing'
