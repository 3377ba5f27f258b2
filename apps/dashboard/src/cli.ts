import { type CommandContext, resolveNetworksConfig, runCommand } from '@uncle-rpc/config'
import { createDb } from '@uncle-rpc/db'
import { type DashboardArgs, parseDashboardArgs, usage } from './args.js'
import { createMailer } from './mail/mailer.js'
import { untilSignal } from '@uncle-rpc/process'
import { createDashboardServer } from './server.js'

/** `uncle-rpc dashboard`: serves until SIGINT/SIGTERM; exit code 2 for bad flags. */
export function run(argv: string[]): Promise<number | undefined> {
  return runCommand(argv, { name: 'dashboard', usage, parse: parseDashboardArgs, run: serve })
}

async function serve(args: DashboardArgs, { env, logger }: CommandContext): Promise<number> {
  // Note: the same networks config as `uncle-rpc rpc`, so the endpoints shown are those it serves, indexed yet or not.
  const config = resolveNetworksConfig(env, args.config)
  const networks = config.networks.map((n) => n.name)
  const networkUrls = new Map(config.networks.flatMap((n) => (n.publicUrl === undefined ? [] : [[n.name, n.publicUrl] as const])))
  const database = createDb({ url: env.DATABASE_URL, max: 4, logger, timeouts: args.db })
  const mailer = createMailer({ logger }, { smtpUrl: env.SMTP_URL, from: args.mailFrom })
  try {
    const host = args.host === '0.0.0.0' || args.host === '::' ? '127.0.0.1' : args.host
    // Note: the public URL is needed before listening; with --port 0 it is known only after, so it is read lazily.
    let publicUrl = args.publicUrl ?? ''
    const dashboard = createDashboardServer(
      { db: database.db, logger },
      {
        signup: args.signup,
        rpcUrl: args.rpcUrl,
        networks,
        networkUrls,
        get publicUrl() {
          return publicUrl
        },
        mailer,
        trustProxy: args.trustProxy,
        maxKeys: args.maxKeys,
        secureCookies: args.secureCookies,
      },
    )
    const address = await dashboard.listen(args.port, args.host)
    publicUrl = args.publicUrl ?? `http://${host}:${address.port}`
    process.stdout.write(
      `dashboard listening on http://${host}:${address.port} (sign-up: ${args.signup}; endpoints under ${args.rpcUrl}; ${mailer.mode === 'smtp' ? 'email via SMTP_URL' : 'emails written to the log: SMTP_URL is unset'})\n`,
    )
    logger.info({ msg: 'dashboard listening', port: address.port, signup: args.signup, networks, email: mailer.mode })
    const signal = await untilSignal()
    logger.info({ msg: 'stopping dashboard', signal })
    await dashboard.close()
    return 0
  } finally {
    mailer.close()
    await database.close()
  }
}
