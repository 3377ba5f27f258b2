import { applyLogFormatFlag } from '@uncle-rpc/config'
import { describeError } from '@uncle-rpc/errors'
import { commands } from './commands.js'

// `uncle-rpc <command> [flags]`: one entry point fronting every part of the system.

function usage(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length))
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)
  return [
    'uncle-rpc: an Infura-compatible eth_getUncleByBlockHashAndIndex service answered from Postgres',
    '',
    'Usage: uncle-rpc <command> [flags]     (uncle-rpc <command> --help for its flags)',
    '',
    'Commands:',
    ...lines,
    '',
    'Every command also takes --log-format <auto|json|pretty> (or LOG_FORMAT): logs go to stderr as',
    'readable lines when it is a terminal (auto, the default), else as JSON lines.',
    '',
  ].join('\n')
}

async function main(args: string[]): Promise<number> {
  const argv = applyLogFormatFlag(args)
  if (!Array.isArray(argv)) {
    process.stderr.write(`uncle-rpc: ${argv.error}\n`)
    return 2
  }
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage())
    return name === undefined ? 1 : 0
  }
  const command = commands[name]
  if (!command) {
    process.stderr.write(`uncle-rpc: unknown command "${name}"\n\n${usage()}`)
    return 2
  }
  const module = await command.load()
  return (await module.run(rest)) ?? 0
}

main(process.argv.slice(2)).then(
  (code) => {
    // Long-running commands (servers) resolve only when they are shut down.
    process.exitCode = code
  },
  (error: unknown) => {
    // Note: with its causes, so that a wrapped database error shows what the server or pooler said.
    process.stderr.write(`uncle-rpc: ${describeError(error)}\n`)
    process.exitCode = 1
  },
)
