import { type CommandContext, runCommand } from '@uncle-rpc/config'
import { createDb } from '@uncle-rpc/db'
import { type DashboardArgs, parseDashboardArgs, usage } from './args.js'
import { createDashboardServer } from './server.js'

function untilSignal(): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'))
    process.once('SIGTERM', () => resolve('SIGTERM'))
  })
}

/** `uncle-rpc dashboard`: serves until SIGINT/SIGTERM; exit code 2 for bad flags. */
export function run(argv: string[]): Promise<number | undefined> {
  return runCommand(argv, { name: 'dashboard', usage, parse: parseDashboardArgs, run: serve })
}

async function serve(args: DashboardArgs, { env, logger }: CommandContext): Promise<number> {
  const database = createDb({ url: env.DATABASE_URL, max: 4, logger, timeouts: args.db })
  try {
    const dashboard = createDashboardServer({ db: database.db, logger }, { signup: args.signup, rpcUrl: args.rpcUrl, secureCookies: args.secureCookies })
    const address = await dashboard.listen(args.port, args.host)
    const host = args.host === '0.0.0.0' || args.host === '::' ? '127.0.0.1' : args.host
    process.stdout.write(`dashboard listening on http://${host}:${address.port} (sign-up: ${args.signup}; endpoints under ${args.rpcUrl})\n`)
    logger.info({ msg: 'dashboard listening', port: address.port, signup: args.signup })
    const signal = await untilSignal()
    logger.info({ msg: 'stopping dashboard', signal })
    await dashboard.close()
    return 0
  } finally {
    await database.close()
  }
}
