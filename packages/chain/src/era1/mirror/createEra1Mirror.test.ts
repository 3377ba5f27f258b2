import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createEra1Mirror } from './createEra1Mirror.js'
import { Era1MirrorError } from './downloadFile.js'

// A real HTTP server on loopback serving a directory, with faults: every third request for a
// file answers 500, every third other one sends half the body and drops the connection.

type Mirror = { url: string; server: Server; dir: string; served: Map<string, number> }

async function startMirror(files: Record<string, Buffer | string>, { faults = true } = {}): Promise<Mirror> {
  const dir = mkdtempSync(join(tmpdir(), 'era1-mirror-src-'))
  for (const [name, data] of Object.entries(files)) writeFileSync(join(dir, name), data)
  const served = new Map<string, number>()
  let requests = 0
  const server = createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.slice(1)) || 'index.html'
    const path = join(dir, name)
    if (name.includes('/') || !existsSync(path)) {
      res.writeHead(404).end('not found')
      return
    }
    const body = readFileSync(path)
    const n = requests++
    if (faults && n % 3 === 1) {
      res.writeHead(500).end('try again')
      return
    }
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '')
    const from = range ? Number(range[1]) : 0
    if (from >= body.length && body.length > 0) {
      res.writeHead(416).end()
      return
    }
    const part = body.subarray(from)
    res.writeHead(range ? 206 : 200, { 'content-length': part.length, ...(range ? { 'content-range': `bytes ${from}-${body.length - 1}/${body.length}` } : {}) })
    if (faults && n % 3 === 2 && part.length > 1000) {
      // Note: the drop comes a moment after the half, so the client has it to resume from.
      res.write(part.subarray(0, part.length >> 1), () => setTimeout(() => res.destroy(), 50))
      served.set(name, (served.get(name) ?? 0) + (part.length >> 1))
      return
    }
    res.end(part)
    served.set(name, (served.get(name) ?? 0) + part.length)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server, dir, served }
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex')
const names = ['testnet-00000-aaaaaaaa.era1', 'testnet-00001-bbbbbbbb.era1', 'testnet-00002-cccccccc.era1']
const contents = names.map(() => randomBytes(300_000))
const checksums = names.map((name, i) => `${sha256(contents[i]!)}  ${name}`).join('\n')

let mirror: Mirror
let out: string
beforeAll(async () => {
  mirror = await startMirror({ ...Object.fromEntries(names.map((n, i) => [n, contents[i]!])), 'checksums.txt': `${checksums}\n` })
  out = mkdtempSync(join(tmpdir(), 'era1-mirror-out-'))
})
afterAll(() => {
  mirror?.server.close()
  for (const d of [mirror?.dir, out]) if (d) rmSync(d, { recursive: true, force: true })
})

describe('createEra1Mirror', () => {
  test('default: every file arrives intact through 500s and dropped connections, resuming with Range', async () => {
    const retries: { reason: string; resumeFrom: number }[] = []
    const era1 = createEra1Mirror({ baseUrl: mirror.url, network: 'testnet', dir: out, backoffMs: 1, onRetry: (r) => retries.push(r) })
    for (let epoch = 0; epoch < names.length; epoch++) {
      const file = await era1.download(epoch)
      expect(file).toMatchObject({ epoch, name: names[epoch], sha256Checked: true, bytes: 300_000 })
      expect(readFileSync(file.path).equals(contents[epoch]!)).toBe(true)
      // Resumed downloads fetch the rest only: never much more than the file.
      expect(mirror.served.get(names[epoch]!)).toBeLessThan(2 * 300_000)
      await era1.remove(file)
      expect(existsSync(file.path)).toBe(false)
    }
    expect(retries.some((r) => r.reason.startsWith('HTTP 500'))).toBe(true)
    expect(retries.some((r) => r.resumeFrom > 0)).toBe(true)
    expect(readdirSync(out)).toEqual([])
  })

  test('behavior: names come from the published roots, or from the index page when there is no checksums.txt', async () => {
    const index = `<html><body><a href="${names[1]}">${names[1]}</a> <a href="other-00001-dddddddd.era1">x</a></body></html>`
    const listed = await startMirror({ [names[1]!]: contents[1]!, 'index.html': index }, { faults: false })
    const unlisted = await startMirror({ [names[1]!]: contents[1]! }, { faults: false })
    try {
      const dir = mkdtempSync(join(out, 'listing-'))
      const fromIndex = createEra1Mirror({ baseUrl: listed.url, network: 'testnet', dir })
      expect(await fromIndex.fileName(1)).toBe(names[1])
      const file = await fromIndex.download(1)
      expect(file.sha256Checked).toBe(false)
      expect(readFileSync(file.path).equals(contents[1]!)).toBe(true)
      await fromIndex.remove(file)
      const roots = { source: 'test', roots: [`0x${'aa'.repeat(32)}`, `0x${'bb'.repeat(32)}`] as `0x${string}`[] }
      expect(await createEra1Mirror({ baseUrl: unlisted.url, network: 'testnet', dir, roots }).fileName(1)).toBe(names[1])
      await expect(createEra1Mirror({ baseUrl: unlisted.url, network: 'testnet', dir }).fileName(1)).rejects.toThrow(
        /lists no testnet file for epoch 1/,
      )
    } finally {
      for (const m of [listed, unlisted]) {
        m.server.close()
        rmSync(m.dir, { recursive: true, force: true })
      }
    }
  })

  test('error: a file that does not match checksums.txt is refused and not kept; a missing epoch is named', async () => {
    const bad = await startMirror({ [names[0]!]: contents[0]!, 'checksums.txt': `${'0'.repeat(64)}  ${names[0]}\n` }, { faults: false })
    try {
      const dir = mkdtempSync(join(out, 'bad-'))
      mkdirSync(dir, { recursive: true })
      const era1 = createEra1Mirror({ baseUrl: bad.url, network: 'testnet', dir, backoffMs: 1 })
      const error = await era1.download(0).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(Era1MirrorError)
      expect((error as Error).message).toMatch(/testnet-00000-aaaaaaaa\.era1: sha256 is [0-9a-f]{64}, checksums.txt says 0{64}/)
      expect(readdirSync(dir)).toEqual([])
      await expect(era1.download(7)).rejects.toThrow(/lists no testnet file for epoch 7/)
    } finally {
      bad.server.close()
      rmSync(bad.dir, { recursive: true, force: true })
    }
  })
})
