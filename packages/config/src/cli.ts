import { type ParseArgsConfig, parseArgs } from 'node:util'
import { BaseError } from '@uncle-rpc/errors'
import { type Env, parseEnv } from './env.js'
import { createLogger, type Logger } from './logger.js'

// The start-up every `uncle-rpc <command>` shares: flags → (bad flag: exit 2) → --help → env → logger → run.

/** A flag is unknown or has a bad value (exit code 2). */
export class UsageError extends BaseError {
  constructor(message: string) {
    super(message, { name: 'UsageError' })
  }
}

/** Flag values by name, as node:util parseArgs returns them. */
export type FlagValues = Record<string, string | string[] | boolean | undefined>

/** Parses `argv` strictly (no positionals) with `-h/--help` added; parseArgs' own errors become UsageErrors. */
export function parseFlags(argv: string[], options: NonNullable<ParseArgsConfig['options']>): FlagValues & { help?: boolean | undefined } {
  try {
    return parseArgs({ args: argv, strict: true, allowPositionals: false, options: { ...options, help: { type: 'boolean', short: 'h' } } })
      .values as FlagValues
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}

/** A decimal integer flag within [min, max]; `fallback` when absent. */
export function integerFlag(name: string, text: string | undefined, min: number, fallback: number, max?: number): number
export function integerFlag(name: string, text: string | undefined, min: number, fallback?: undefined, max?: number): number | undefined
export function integerFlag(name: string, text: string | undefined, min: number, fallback?: number, max?: number): number | undefined {
  if (text === undefined) return fallback
  const value = Number(text)
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || (max !== undefined && value > max))
    throw new UsageError(`--${name} must be an integer ${max === undefined ? `≥ ${min}` : `from ${min} to ${max}`}, got "${text}"`)
  return value
}

/** What a command runs with once its flags are good: the environment and its logger. */
export type CommandContext = { env: Env; logger: Logger }

export type RunCommandParameters<A> = {
  /** The subcommand's name (messages, logger name). */
  name: string
  /** The `--help` text. */
  usage: string
  /** Flags → arguments, or 'help'. Throws UsageError. */
  parse: (argv: string[]) => A | 'help'
  run: (args: A, context: CommandContext) => Promise<number | undefined>
}

/** Runs a subcommand's start-up sequence and then the command; the exit code it returns. */
export async function runCommand<A>(argv: string[], parameters: RunCommandParameters<A>): Promise<number | undefined> {
  const { name, usage } = parameters
  let args: A | 'help'
  try {
    args = parameters.parse(argv)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`${name}: ${error.shortMessage}\n(uncle-rpc ${name} --help for the flags)\n`)
    return 2
  }
  if (args === 'help') {
    process.stdout.write(usage)
    return 0
  }
  // Note: read on first use, so a command that needs neither (the sample node) is not refused for a bad DATABASE_URL.
  let env: Env | undefined
  let logger: Logger | undefined
  const context: CommandContext = {
    get env() {
      return (env ??= parseEnv(process.env))
    },
    get logger() {
      return (logger ??= createLogger({ level: context.env.LOG_LEVEL, name, format: context.env.LOG_FORMAT }))
    },
  }
  return parameters.run(args, context)
}
