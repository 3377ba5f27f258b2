import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { era1FileName } from '../era1FileName.js'
import type { EpochRoots } from '../epochRoots.js'
import { downloadFile, Era1MirrorError } from './downloadFile.js'
import { era1NamesIn, nameForEpoch, parseChecksums } from './mirrorIndex.js'

export type CreateEra1MirrorParameters = {
  /** http(s) base URL of the directory holding the files (e.g. https://mirror.example/mainnet/). */
  baseUrl: string
  /** Network name in the file names (`mainnet`, `sepolia`, …). */
  network: string
  /** Directory the files are downloaded into (created by the caller). */
  dir: string
  /** Published roots: an epoch's file name comes from its root, no listing needed. Otherwise the mirror's checksums.txt or index page names the files. */
  roots?: EpochRoots | undefined
  /** Attempts per file (default 8) and first back-off in ms (default 200, doubling up to 5 s). */
  attempts?: number | undefined
  backoffMs?: number | undefined
  onRetry?: ((info: { url: string; attempt: number; reason: string; resumeFrom: number }) => void) | undefined
  fetch?: typeof fetch | undefined
}

/** A downloaded epoch file. */
export type Era1MirrorFile = { epoch: number; name: string; path: string; bytes: number; sha256Checked: boolean }

/**
 * An era1 mirror: downloads epoch files by their standard names into `dir`. Pure I/O, no
 * verification beyond the mirror's sha256 (callers run verifyEra1File before using a file).
 * Disk stays bounded when the caller `remove`s each file once it is used.
 */
export type Era1Mirror = {
  /** The standard file name of `epoch` on this mirror. Throws Era1MirrorError if the mirror does not list it. */
  fileName(epoch: number): Promise<string>
  /** Downloads `epoch` (resuming a partial download, retrying faults, checking checksums.txt when published). */
  download(epoch: number): Promise<Era1MirrorFile>
  /** Deletes a downloaded file (and any partial download of it). */
  remove(file: Era1MirrorFile): Promise<void>
}

/** Creates an {@link Era1Mirror} for one network's directory on an http(s) mirror. */
export function createEra1Mirror(params: CreateEra1MirrorParameters): Era1Mirror {
  const base = new URL(params.baseUrl.endsWith('/') ? params.baseUrl : `${params.baseUrl}/`)
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new Era1MirrorError({ url: params.baseUrl, reason: 'expected an http(s) URL' })
  const doFetch = params.fetch ?? fetch
  const retry = { attempts: params.attempts, backoffMs: params.backoffMs, onRetry: params.onRetry, fetch: doFetch }

  // Fetches a small text document (checksums.txt, the index page), with the same retries; undefined on 404.
  const fetchText = async (name: string): Promise<string | undefined> => {
    const url = new URL(name, base).toString()
    const path = join(params.dir, `.${name || 'index'}.${process.pid}.txt`)
    try {
      await downloadFile({ url, path, ...retry })
      return await readFile(path, 'utf8')
    } catch (error) {
      if (error instanceof Era1MirrorError && (error.status === 404 || error.status === 410 || error.status === 403)) return undefined
      throw error
    } finally {
      await rm(path, { force: true })
    }
  }

  let checksums: Promise<Map<string, string> | undefined> | undefined
  const loadChecksums = () => {
    checksums ??= fetchText('checksums.txt').then((text) => (text === undefined ? undefined : parseChecksums(text)))
    return checksums
  }
  let listing: Promise<string[]> | undefined
  const loadListing = () => {
    listing ??= (async () => {
      const sums = await loadChecksums()
      const fromSums = sums ? era1NamesIn([...sums.keys()].join('\n'), params.network) : []
      if (fromSums.length > 0) return fromSums
      return era1NamesIn((await fetchText('')) ?? '', params.network)
    })()
    return listing
  }

  const fileName = async (epoch: number): Promise<string> => {
    const root = params.roots?.roots[epoch]
    if (root !== undefined) return era1FileName({ network: params.network, epoch, root })
    const name = nameForEpoch(await loadListing(), params.network, epoch)
    if (name === undefined)
      throw new Era1MirrorError({ url: base.toString(), reason: `lists no ${params.network} file for epoch ${epoch}` })
    return name
  }

  return {
    fileName,
    async download(epoch) {
      const name = await fileName(epoch)
      const sha256 = (await loadChecksums())?.get(name)
      const path = join(params.dir, name)
      const { bytes } = await downloadFile({ url: new URL(name, base).toString(), path, sha256, ...retry })
      return { epoch, name, path, bytes, sha256Checked: sha256 !== undefined }
    },
    async remove(file) {
      await rm(file.path, { force: true })
      await rm(`${file.path}.part`, { force: true })
    },
  }
}
