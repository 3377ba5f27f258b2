import { open, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { mkdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { BaseError } from '@uncle-rpc/errors'
import { createEra1Mirror, type EpochRoots, epochSize, type Era1MirrorFile, locateBlockIndex, parseEra1FileName } from '@uncle-rpc/chain'
import type { Logger } from '@uncle-rpc/config'

// Where era1 files come from. A directory is read in place; a mirror (http(s) base URL)
// downloads each file before its job and removes it after (unless kept). Both give the
// indexer the same small interface.

/** One era1 file: `<network>-<epoch>-<root8>.era1` and the blocks it holds. */
export type Era1FileRef = { epoch: number; name: string; startNumber: bigint; count: number }

export type Era1Store = {
  /** For logs: the directory or the mirror's URL (without credentials). */
  readonly description: string
  /** The files there are, by epoch (one per epoch: the first by name when several). */
  list(): Promise<Era1FileRef[]>
  /** The file's bytes (a mirror downloads it first). */
  read(ref: Era1FileRef): Promise<Uint8Array>
  /** Done with the file: a mirror removes its download unless asked to keep it. */
  release(ref: Era1FileRef, outcome: 'indexed' | 'refused'): Promise<void>
}

/** The era1 source cannot be read. */
export class Era1StoreError extends BaseError {
  constructor(message: string, cause?: unknown) {
    super(message, { name: 'Era1StoreError', cause })
  }
}

/** Reads the BlockIndex at the end of a file (16 bytes of it, not the file): its first block number and block count. */
async function readIndex(path: string): Promise<{ startNumber: bigint; count: number }> {
  const file = await open(path, 'r')
  try {
    const { size } = await file.stat()
    const word = Buffer.alloc(8)
    await file.read(word, 0, 8, size - 8)
    const place = locateBlockIndex(size, word.readBigUInt64LE(0))
    await file.read(word, 0, 8, place.startNumberAt)
    return { startNumber: word.readBigUInt64LE(0), count: place.count }
  } finally {
    await file.close()
  }
}

/** A directory of era1 files, read in place (never removed). */
function createDirectoryStore(directory: string): Era1Store {
  return {
    description: directory,
    async list() {
      let names: string[]
      try {
        names = (await readdir(directory)).sort()
      } catch (error) {
        throw new Era1StoreError(`era1 directory ${directory} cannot be read: ${(error as Error).message}`, error)
      }
      const byEpoch = new Map<number, Era1FileRef>()
      for (const name of names) {
        const parsed = parseEra1FileName(name)
        if (!parsed || byEpoch.has(parsed.epoch)) continue
        // Note: a file too short to hold an index is listed as a full epoch; its job refuses it.
        const index = await readIndex(join(directory, name)).catch(() => ({ startNumber: BigInt(parsed.epoch * epochSize), count: epochSize }))
        byEpoch.set(parsed.epoch, { epoch: parsed.epoch, name, ...index })
      }
      return [...byEpoch.values()].sort((a, b) => a.epoch - b.epoch)
    },
    async read(ref) {
      return new Uint8Array(await readFile(join(directory, ref.name)))
    },
    async release() {},
  }
}

export type MirrorStoreParameters = {
  baseUrl: string
  network: string
  /** Published roots: file names come from them; otherwise from the mirror's checksums.txt or index. */
  roots: EpochRoots | undefined
  /** Epochs the network needs (only these are looked for). */
  epochs: { from: number; to: number }
  /** Where downloads go; a file is removed after its job unless `keep`. */
  dir: string
  keep: boolean
  logger: Logger
}

/**
 * An http(s) mirror (packages/chain's downloader: standard names, resume, retries, checksums.txt):
 * each job downloads its file, and the file is removed once indexed or refused unless `keep`.
 */
function createMirrorStore(p: MirrorStoreParameters): Era1Store {
  const mirror = createEra1Mirror({
    baseUrl: p.baseUrl,
    network: p.network,
    dir: p.dir,
    roots: p.roots,
    onRetry: (info) => p.logger.warn({ msg: 'era1 download retry', file: info.url.split('/').at(-1), attempt: info.attempt, reason: info.reason }),
  })
  const downloads = new Map<string, Era1MirrorFile>()
  return {
    description: new URL(p.baseUrl).origin + new URL(p.baseUrl).pathname,
    async list() {
      await mkdir(p.dir, { recursive: true })
      const refs: Era1FileRef[] = []
      for (let epoch = p.epochs.from; epoch <= p.epochs.to; epoch++) {
        // Note: an epoch the mirror does not list is left to the node (or reported as uncovered).
        const name = await mirror.fileName(epoch).catch(() => undefined)
        if (name !== undefined) refs.push({ epoch, name, startNumber: BigInt(epoch * epochSize), count: epochSize })
      }
      return refs
    },
    async read(ref) {
      await mkdir(p.dir, { recursive: true })
      const file = await mirror.download(ref.epoch)
      downloads.set(ref.name, file)
      return new Uint8Array(await readFile(file.path))
    },
    async release(ref) {
      const file = downloads.get(ref.name)
      downloads.delete(ref.name)
      if (!p.keep) await (file ? mirror.remove(file) : rm(join(p.dir, ref.name), { force: true }))
    },
  }
}

/**
 * The store for a network's `era1` setting: a directory path, or an http(s):// mirror base URL
 * (downloads go to `downloadDir`, default <tmp>/uncle-rpc-era1/<network>).
 */
export function createEra1Store(
  source: string,
  options: Omit<MirrorStoreParameters, 'baseUrl' | 'dir'> & { downloadDir?: string },
): Era1Store {
  if (/^https?:\/\//i.test(source))
    return createMirrorStore({ ...options, baseUrl: source, dir: options.downloadDir ?? join(tmpdir(), 'uncle-rpc-era1', options.network) })
  return createDirectoryStore(source)
}
