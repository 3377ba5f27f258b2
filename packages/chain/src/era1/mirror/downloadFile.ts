import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { rename, rm, stat } from 'node:fs/promises'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'
import { BaseError } from '@uncle-rpc/errors'
import { sleep } from '@uncle-rpc/process'

/** A download that failed for good (after its retries, or at once for 404 and checksum mismatches twice). */
export class Era1MirrorError extends BaseError {
  readonly url: string
  /** The HTTP status that ended it, when one did (404: the mirror does not have the file). */
  readonly status: number | undefined
  constructor({ url, reason, status, cause }: { url: string; reason: string; status?: number | undefined; cause?: unknown }) {
    super(`Era1 mirror: ${url}: ${reason}`, { name: 'Era1MirrorError', cause })
    this.url = url
    this.status = status
  }
}

export type DownloadFileParameters = {
  url: string
  /** Final path; the download goes to `<path>.part` (kept between attempts, for Range resume) and is renamed when complete. */
  path: string
  /** Expected sha256 (lowercase hex), when the mirror publishes one. */
  sha256?: string | undefined
  /** Attempts before giving up (default 8). */
  attempts?: number | undefined
  /** First back-off in ms, doubled per attempt up to 5 s (default 200). */
  backoffMs?: number | undefined
  /** Called before each retry, for logging. */
  onRetry?: ((info: { url: string; attempt: number; reason: string; resumeFrom: number }) => void) | undefined
  fetch?: typeof fetch | undefined
}

class RetryableDownloadError extends BaseError {
  constructor(reason: string, cause?: unknown) {
    super(reason, { name: 'RetryableDownloadError', cause })
  }
}


async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0 // no partial file yet
    throw error
  }
}

/**
 * Streams `url` to `path`: resumes with `Range` after dropped connections, retries 5xx and
 * network errors with exponential back-off, checks the length the server announced and the
 * sha256 when given (a mismatch discards the file and downloads it once more). Returns the byte count.
 */
export async function downloadFile(params: DownloadFileParameters): Promise<{ bytes: number }> {
  const { url, path } = params
  const part = `${path}.part`
  const attempts = params.attempts ?? 8
  const doFetch = params.fetch ?? fetch
  let checksumFailures = 0
  for (let attempt = 1; ; attempt++) {
    const resumeFrom = await sizeOf(part)
    try {
      await fetchOnce({ url, part, resumeFrom, doFetch })
      if (params.sha256 !== undefined) {
        const actual = await sha256File(part)
        if (actual !== params.sha256) {
          await rm(part, { force: true })
          if (++checksumFailures >= 2)
            throw new Era1MirrorError({ url, reason: `sha256 is ${actual}, checksums.txt says ${params.sha256}` })
          throw new RetryableDownloadError(`sha256 mismatch (${actual}); downloading again`)
        }
      }
      await rename(part, path)
      return { bytes: await sizeOf(path) }
    } catch (error) {
      if (!(error instanceof RetryableDownloadError)) throw error
      if (attempt >= attempts)
        throw new Era1MirrorError({ url, reason: `gave up after ${attempts} attempts: ${error.shortMessage}`, cause: error })
      params.onRetry?.({ url, attempt, reason: error.shortMessage, resumeFrom: await sizeOf(part) })
      await sleep(Math.min(5000, (params.backoffMs ?? 200) * 2 ** (attempt - 1)))
    }
  }
}

async function fetchOnce({
  url,
  part,
  resumeFrom,
  doFetch,
}: {
  url: string
  part: string
  resumeFrom: number
  doFetch: typeof fetch
}): Promise<void> {
  let response: Response
  try {
    response = await doFetch(url, resumeFrom > 0 ? { headers: { range: `bytes=${resumeFrom}-` } } : {})
  } catch (error) {
    throw new RetryableDownloadError(`request failed (${(error as Error).message})`, error)
  }
  if (response.status === 416) {
    // Note: the partial file is no prefix of what the server has now; start over.
    await response.body?.cancel()
    await rm(part, { force: true })
    throw new RetryableDownloadError('range not satisfiable; restarting')
  }
  if (response.status === 404 || response.status === 410) {
    await response.body?.cancel()
    throw new Era1MirrorError({ url, reason: `not on the mirror (HTTP ${response.status})`, status: response.status })
  }
  if (response.status !== 200 && response.status !== 206) {
    await response.body?.cancel()
    if (response.status >= 500 || response.status === 429) throw new RetryableDownloadError(`HTTP ${response.status}`)
    throw new Era1MirrorError({ url, reason: `HTTP ${response.status}`, status: response.status })
  }
  const append = response.status === 206
  const length = Number(response.headers.get('content-length') ?? Number.NaN)
  const expectedEnd = (append ? resumeFrom : 0) + length
  if (!response.body) throw new RetryableDownloadError('response has no body')
  try {
    await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), createWriteStream(part, { flags: append ? 'a' : 'w' }))
  } catch (error) {
    throw new RetryableDownloadError(`connection dropped (${(error as Error).message})`, error)
  }
  const size = await sizeOf(part)
  if (Number.isFinite(expectedEnd) && size !== expectedEnd)
    throw new RetryableDownloadError(`got ${size} of ${expectedEnd} bytes`)
}

/** sha256 of a file, streamed. */
async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}
