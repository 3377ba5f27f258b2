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

// Note: 28P01 invalid_password, 28000 invalid_authorization_specification (pg_hba refused the user);
// node-postgres itself throws "client password must be a string" when the server asks for a password
// and the URL has none, before the server could say anything.
const authCodes = new Set(['28P01', '28000'])
const isAuthFailure = (error: unknown) =>
  error instanceof Error && (authCodes.has((error as { code?: string }).code ?? '') || /password must be a string|SASL: SCRAM/.test(error.message))

/** The message for a Postgres that answered but refused the login: what failed and how to fix it. */
function authFailure(url: string, error: Error): string {
  const u = new URL(url)
  const user = decodeURIComponent(u.username) || 'postgres'
  const example = new URL(url)
  example.password = u.password === '' ? 'PASSWORD' : '<the right password>'
  const reason = u.password === '' ? 'the server asks for a password and DATABASE_URL has none' : error.message
  return [
    `PostgreSQL at ${place(url)} answered, but authentication failed for user "${user}" (${reason}).`,
    'Put the user\'s password in DATABASE_URL, e.g.',
    `  export DATABASE_URL=${example.toString()}`,
    "docker compose's Postgres has user postgres, password postgres (POSTGRES_PASSWORD): npm start's default URL,",
    '  postgres://postgres:postgres@127.0.0.1:5432/uncle_rpc, logs in to it.',
  ].join('\n')
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
      isAuthFailure(error) ? authFailure(env.DATABASE_URL, error as Error) : [
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
            `  redis-server --daemonize yes --bind 127.0.0.1 --port ${new URL(target.url).port || '6379'}      # local service`,
            'or point REDIS_URL at your server.',
          ].join('\n'),
    )
  } finally {
    redis.disconnect()
  }
  return problems
}
