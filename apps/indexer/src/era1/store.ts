import { open, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { BaseError } from '@uncle-rpc/chain'

// Where era1 files come from. A directory is read in place; a mirror (http(s) base URL)
// downloads each file before its job and removes it after (unless kept). Both give the
// indexer the same small interface.

/** Blocks per era1 epoch. */
export const epochSize = 8192

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

const nameRe = /^([a-z0-9-]+)-(\d{5})-([0-9a-f]{8})\.era1$/

/** The epoch and root prefix a standard era1 file name carries, if it is one. */
export function parseEra1Name(name: string): { network: string; epoch: number; root8: string } | undefined {
  const match = nameRe.exec(name)
  if (!match) return undefined
  return { network: match[1] as string, epoch: Number(match[2]), root8: match[3] as string }
}

/** Reads the BlockIndex at the end of a file: its first block number and block count. */
async function readIndex(path: string): Promise<{ startNumber: bigint; count: number }> {
  const file = await open(path, 'r')
  try {
    const { size } = await file.stat()
    const tail = Buffer.alloc(8)
    await file.read(tail, 0, 8, size - 8)
    const count = Number(tail.readBigUInt64LE(0))
    if (count < 1 || count > epochSize) throw new Era1StoreError(`${path}: block index count ${count} is not 1–${epochSize}`)
    const head = Buffer.alloc(8)
    // BlockIndex record: header(8) | start u64 | offsets i64 × count | count u64
    await file.read(head, 0, 8, size - 8 - 8 * count - 8)
    return { startNumber: head.readBigUInt64LE(0), count }
  } finally {
    await file.close()
  }
}

/** A directory of era1 files, read in place (never removed). */
export function createDirectoryStore(directory: string): Era1Store {
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
        const parsed = parseEra1Name(name)
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

/**
 * The store for a network's `era1` setting: a directory path, or an http(s):// mirror base URL.
 * `keep`: a mirror keeps its downloads (`--keep-era1`).
 */
export function createEra1Store(source: string, { keep: _keep }: { keep: boolean; downloadDir?: string }): Era1Store {
  if (/^https?:\/\//i.test(source))
    throw new Era1StoreError(`era1 mirror ${new URL(source).origin}: downloading from a mirror is not available in this build; download the files and give their directory`)
  return createDirectoryStore(source)
}
