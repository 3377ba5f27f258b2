import { readdir, readFile, stat } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { parseArgs } from 'node:util'
import { BaseError } from '@uncle-rpc/errors'
import {
  type EpochRoots,
  Era1FileRefusedError,
  hashesReady,
  loadEpochRoots,
  parseEra1FileName,
  publishedEpochRoots,
  verifyEra1File,
} from '@uncle-rpc/chain'

const usage = `Usage: uncle-rpc era1 verify <file|dir>... [--roots <file>]

Verifies era1 files the way the indexer does before taking anything from them: e2store
structure, snappy checksums, every header and uncle re-hashed, sha3Uncles, parent links, the
total-difficulty chain, and the epoch accumulator against the file's own record, its file name
and the published root of its epoch. A directory means every *.era1 file in it, in name order.

Prints one line per file:  <file>  epoch <n>  root <0x…>  <blocks> blocks  <uncles> uncles  <verdict>
Exit code 0 when every file passes, 1 when any fails, 2 for bad usage.

Published roots: mainnet's 1,897 ship with uncle-rpc and apply to files named mainnet-*.
For other chains give --roots; without published roots only self-consistency is checked
(said on each line and on stderr).

Flags:
  --roots <file>   published roots for every file given: one 0x-prefixed root per line, epoch 0
                   first ('#' lines are comments), as packages/chain/data/mainnet-epoch-roots.txt
  -h, --help
`

async function expand(paths: readonly string[]): Promise<string[]> {
  const files: string[] = []
  for (const path of paths) {
    if ((await stat(path)).isDirectory())
      files.push(...(await readdir(path)).filter((n) => n.endsWith('.era1')).sort().map((n) => join(path, n)))
    else files.push(path)
  }
  return files
}

/** `uncle-rpc era1 verify`. */
export async function run(argv: string[]): Promise<number> {
  let parsed: { values: { roots?: string | undefined; help?: boolean | undefined }; positionals: string[] }
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { roots: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    })
  } catch (error) {
    process.stderr.write(`era1 verify: ${(error as Error).message}\n(uncle-rpc era1 verify --help for the flags)\n`)
    return 2
  }
  if (parsed.values.help) {
    process.stdout.write(usage)
    return 0
  }
  if (parsed.positionals.length === 0) {
    process.stderr.write(`era1 verify: name at least one era1 file or directory\n\n${usage}`)
    return 2
  }
  let given: EpochRoots | undefined
  let files: string[]
  try {
    given = parsed.values.roots === undefined ? undefined : loadEpochRoots(parsed.values.roots)
    files = await expand(parsed.positionals)
  } catch (error) {
    process.stderr.write(`era1 verify: ${error instanceof BaseError ? error.shortMessage : (error as Error).message}\n`)
    return 2
  }
  if (files.length === 0) {
    process.stderr.write(`era1 verify: no .era1 files in ${parsed.positionals.join(', ')}\n`)
    return 1
  }
  await hashesReady()
  let failed = 0
  for (const file of files) {
    const network = parseEra1FileName(file)?.network
    const roots = given ?? (network === undefined ? undefined : publishedEpochRoots(network))
    const name = basename(file)
    try {
      const result = verifyEra1File({ bytes: await readFile(file), file: name, roots })
      const verdict =
        result.checked === 'published'
          ? 'OK (published root)'
          : `OK (self-consistent only: no published roots for ${network ?? 'this file'}; pass --roots)`
      process.stdout.write(
        `${name}  epoch ${result.epoch ?? '-'}  root ${result.accumulatorRoot}  ${result.blocks} blocks  ${result.uncles} uncles  ${verdict}\n`,
      )
      if (result.checked === 'self')
        process.stderr.write(`era1 verify: warning: ${name}: only self-consistency was checked (no published roots)\n`)
    } catch (error) {
      failed++
      const reason =
        error instanceof Era1FileRefusedError ? error.reason : error instanceof BaseError ? error.shortMessage : (error as Error).message
      const epoch = error instanceof Era1FileRefusedError ? error.epoch : undefined
      process.stdout.write(`${name}  epoch ${epoch ?? '-'}  FAILED: ${reason}\n`)
    }
  }
  process.stdout.write(`${files.length - failed} of ${files.length} files verified${failed ? `, ${failed} FAILED` : ''}\n`)
  return failed === 0 ? 0 : 1
}
