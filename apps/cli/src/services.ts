import { createRedisClient, describeRedisTarget, type Env, oneShotTuning, parseRedisUrl } from '@uncle-rpc/config'
import pg from 'pg'

function describe(error: unknown): string {
  if (error instanceof AggregateError) return error.errors.map(describe).join(', ')
  return error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.message) : String(error)
}

/** Where a Postgres URL points, without its password. */
function place(url: string): string {
  const u = new URL(url)
  return `${u.hostname}:${u.port || '5432'}`
}

/**
 * Checks that PostgreSQL and Redis answer; for each one that does not, a message saying
 * exactly how to start it. Empty when both are up.
 */
export async function checkServices(env: Env): Promise<string[]> {
  const problems: string[] = []
  const server = new URL(env.DATABASE_URL)
  server.pathname = '/postgres'
  const client = new pg.Client({ connectionString: server.toString(), connectionTimeoutMillis: 3_000 })
  try {
    await client.connect()
  } catch (error) {
    problems.push(
      [
        `PostgreSQL is not answering at ${place(env.DATABASE_URL)} (${describe(error)}). Start it with one of:`,
        '  docker compose up -d postgres redis',
        '  sudo pg_ctlcluster $(ls /etc/postgresql) main start        # Debian/Ubuntu local service',
        'or point DATABASE_URL at your server.',
      ].join('\n'),
    )
  } finally {
    await client.end().catch(() => undefined)
  }
  const target = parseRedisUrl(env.REDIS_URL)
  const redis = createRedisClient(target, { ...oneShotTuning, lazyConnect: true, maxRetriesPerRequest: 0 })
  redis.on('error', () => undefined) // Note: the failure is reported below; ioredis would also emit it.
  try {
    await redis.connect()
    await redis.ping()
  } catch (error) {
    problems.push(
      target.kind === 'sentinel'
        ? [
            `Redis is not answering at ${describeRedisTarget(target)} (${describe(error)}).`,
            `Check that the sentinels run and monitor "${target.masterName}" (redis-cli -p <port> sentinel get-master-addr-by-name ${target.masterName}),`,
            'or point REDIS_URL at your server.',
          ].join('\n')
        : [
            `Redis is not answering at ${describeRedisTarget(target)} (${describe(error)}). Start it with one of:`,
            '  docker compose up -d postgres redis',
            '  redis-server --daemonize yes --bind 127.0.0.1 --port 6379      # local service',
            'or point REDIS_URL at your server.',
          ].join('\n'),
    )
  } finally {
    redis.disconnect()
  }
  return problems
}
