import { expect, test } from 'vitest'
import { integerFlag, parseFlags, runCommand, UsageError } from './cli.js'

test('error: unknown flags, positionals and bad integers are UsageErrors with the flag named', () => {
  expect(() => parseFlags(['--bogus'], { port: { type: 'string' } })).toThrow(UsageError)
  expect(() => parseFlags(['extra'], { port: { type: 'string' } })).toThrow(UsageError)
  expect(parseFlags(['--port', '5', '-h'], { port: { type: 'string' } })).toEqual({ port: '5', help: true })
  expect(integerFlag('port', undefined, 0, 8545)).toBe(8545)
  expect(integerFlag('workers', '3', 1, 1)).toBe(3)
  expect(() => integerFlag('workers', '0', 1, 1)).toThrow('--workers must be an integer ≥ 1, got "0"')
  expect(() => integerFlag('seed', '1e3', 0, undefined, 9)).toThrow('--seed must be an integer from 0 to 9, got "1e3"')
})

test('behavior: runCommand exits 2 on a usage error, 0 on --help, else runs with env and logger', async () => {
  const parse = (argv: string[]) => (argv[0] === '-h' ? ('help' as const) : argv[0] === 'bad' ? (() => { throw new UsageError('bad flag') })() : argv)
  const written: string[] = []
  const write = (text: string | Uint8Array) => (written.push(String(text)), true)
  const [out, err] = [process.stdout.write, process.stderr.write]
  process.stdout.write = write as typeof process.stdout.write
  process.stderr.write = write as typeof process.stderr.write
  try {
    expect(await runCommand(['bad'], { name: 'demo', usage: 'Usage: demo\n', parse, run: async () => 1 })).toBe(2)
    expect(await runCommand(['-h'], { name: 'demo', usage: 'Usage: demo\n', parse, run: async () => 1 })).toBe(0)
  } finally {
    process.stdout.write = out
    process.stderr.write = err
  }
  expect(written).toEqual(['demo: bad flag\n(uncle-rpc demo --help for the flags)\n', 'Usage: demo\n'])
  const code = await runCommand(['go'], { name: 'demo', usage: '', parse, run: async (args, { env, logger }) => (args[0] === 'go' && env.DATABASE_URL && logger ? 7 : 1) })
  expect(code).toBe(7)
})
