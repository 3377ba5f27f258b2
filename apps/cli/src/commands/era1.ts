// `uncle-rpc era1 <verify|write>`: tools for era1 archives. Each subcommand owns its flags and help.

const usage = `Usage: uncle-rpc era1 <subcommand> [flags]     (uncle-rpc era1 <subcommand> --help)

Tools for era1 archives (the pre-merge history: 1,897 files of 8,192 blocks on mainnet).

Subcommands:
  verify <file|dir>...   verify era1 files: print each epoch's root and verdict; exit 1 if any fails
  write --synthetic <n>  write a synthetic chain of n blocks as era1 files
`

const subcommands: Record<string, () => Promise<{ run: (argv: string[]) => Promise<number> }>> = {
  verify: () => import('./era1/verify.js'),
  write: () => import('./era1/write.js'),
}

/** Dispatches to the subcommand; exit code 2 for an unknown one. */
export async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage)
    return name === undefined ? 2 : 0
  }
  const load = subcommands[name]
  if (!load) {
    process.stderr.write(`era1: unknown subcommand "${name}"\n\n${usage}`)
    return 2
  }
  return (await load()).run(rest)
}
