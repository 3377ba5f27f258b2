import { readdir, readFile, stat } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { BaseError } from '@uncle-rpc/errors'
import { type Era1File, type Hex, openEra1, verifyEra1 } from '@uncle-rpc/chain'
import { LRUCache } from 'lru-cache'
import type { ChainBlock, ChainSource } from './chainSource.js'
import { buildHashPrefixIndex, hashPrefix } from './hashIndex.js'

export type Era1SourceOptions = {
  /** era1 files, or directories whose `*.era1` files are all used. */
  paths: readonly string[]
  /** Defaults to the network named by the file names (`mainnet-00000-….era1` → 1). */
  chainId?: bigint | undefined
  /** Decoded blocks kept in memory (default 4,096). */
  cacheBlocks?: number | undefined
  /** Called after each file is verified. */
  onFile?: ((path: string, summary: { blocks: number; uncles: number; accumulatorRoot: Hex }) => void) | undefined
}

/** The era1 files cannot be served: none found, not contiguous, or an unknown network. */
export class Era1SourceError extends BaseError {
  constructor(message: string, options: { details?: string; cause?: unknown } = {}) {
    super(message, { ...options, name: 'Era1SourceError' })
  }
}

const networkChainIds: Record<string, bigint> = { mainnet: 1n, sepolia: 11155111n, goerli: 5n, holesky: 17000n }

async function expandPaths(paths: readonly string[]): Promise<string[]> {
  const files: string[] = []
  for (const path of paths) {
    if ((await stat(path)).isDirectory()) {
      const names = (await readdir(path)).filter((name) => name.endsWith('.era1')).sort()
      files.push(...names.map((name) => join(path, name)))
    } else files.push(path)
  }
  if (files.length === 0) throw new Era1SourceError(`no .era1 files in ${paths.join(', ')}`)
  return files
}

function chainIdFromNames(files: readonly string[]): bigint {
  const networks = new Set(files.map((file) => basename(file).split('-')[0] ?? ''))
  const [network] = networks
  const chainId = networks.size === 1 && network !== undefined ? networkChainIds[network] : undefined
  if (chainId === undefined)
    throw new Era1SourceError(`cannot tell the chain id from the file names (${[...networks].join(', ')}): pass --chain-id`)
  return chainId
}

/**
 * Serves blocks from era1 archives. At startup every file is verified (`verifyEra1`: hashes,
 * sha3Uncles, parent links, total difficulty, accumulator root), the files must continue each
 * other, and a compact hash index is built. The files are held in memory, so this is meant for
 * a handful of epochs (each ~4–600 MB on mainnet; epoch 0 is 3.9 MB).
 */
export async function createEra1Source(options: Era1SourceOptions): Promise<ChainSource> {
  const paths = await expandPaths(options.paths)
  type Loaded = { path: string; file: Era1File; prefixes: Uint32Array; firstParent: Hex; lastHash: Hex }
  const loaded: Loaded[] = []
  for (const path of paths) {
    try {
      const file = openEra1(await readFile(path))
      const prefixes = new Uint32Array(file.count)
      let firstParent: Hex | undefined
      let lastHash: Hex | undefined
      let i = 0
      const summary = verifyEra1(file, {
        onBlock: (block) => {
          firstParent ??= block.header.parentHash
          lastHash = block.header.hash
          prefixes[i++] = hashPrefix(block.header.hash)
        },
      })
      options.onFile?.(path, summary)
      loaded.push({ path, file, prefixes, firstParent: firstParent as Hex, lastHash: lastHash as Hex })
    } catch (error) {
      throw new Era1SourceError(`${path} failed verification`, { cause: error, details: (error as Error).message })
    }
  }
  loaded.sort((a, b) => (a.file.startNumber < b.file.startNumber ? -1 : 1))
  const first = (loaded[0] as Loaded).file.startNumber
  let next = first
  let previous: Loaded | undefined
  for (const entry of loaded) {
    if (entry.file.startNumber !== next)
      throw new Era1SourceError(
        `${entry.path} starts at block ${entry.file.startNumber}, but the files before it end at ${next - 1n}`,
      )
    if (previous && entry.firstParent !== previous.lastHash)
      throw new Era1SourceError(`${entry.path} does not continue ${previous.path}`, {
        details: `its first block's parentHash is ${entry.firstParent}, the last block before it is ${previous.lastHash}`,
      })
    next += BigInt(entry.file.count)
    previous = entry
  }
  const last = next - 1n
  const chainId = options.chainId ?? chainIdFromNames(paths)
  const total = Number(last - first + 1n)
  const prefixes = new Uint32Array(total)
  for (const entry of loaded) prefixes.set(entry.prefixes, Number(entry.file.startNumber - first))
  const index = buildHashPrefixIndex(prefixes, total)

  const fileFor = (number: bigint): Era1File | undefined =>
    loaded.find(({ file }) => number >= file.startNumber && number < file.startNumber + BigInt(file.count))?.file
  const cache = new LRUCache<bigint, ChainBlock>({ max: options.cacheBlocks ?? 4096 })
  const blockAt = (number: bigint): ChainBlock | undefined => {
    const cached = cache.get(number)
    if (cached) return cached
    const block = fileFor(number)?.block(number)
    if (block) cache.set(number, block)
    return block
  }

  return {
    description: `era1 blocks ${first}–${last} from ${loaded.length} file${loaded.length === 1 ? '' : 's'}`,
    chainId,
    head: () => last,
    blockByNumber: (number) => (number < first || number > last ? undefined : blockAt(number)),
    blockByHash(hash) {
      const wanted = hash.toLowerCase()
      for (const offset of index.candidates(hashPrefix(hash))) {
        const block = blockAt(first + BigInt(offset))
        if (block?.header.hash === wanted) return block
      }
      return undefined
    },
  }
}
