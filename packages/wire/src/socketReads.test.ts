import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net'
import { afterEach, describe, expect, test } from 'vitest'
import { dropShared, pushReads, readShared, sharedReadsSupported } from './socketReads.js'

// Sockets a server accepted, read into the one shared buffer: every byte arrives once, in order,
// in memory of its own (a later read of another socket never changes it), and pause, resume, the
// client's FIN and the switch back to node's own delivery behave as node's reads do.

const servers: Server[] = []
const sockets: Socket[] = []
afterEach(async () => {
  for (const c of sockets.splice(0)) c.destroy()
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve))
})

/** A server and `n` clients connected to it; resolves with the server's side of each, in the clients' order. */
async function pairs(n: number): Promise<{ client: Socket; accepted: Socket }[]> {
  const accepted: Socket[] = []
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    accepted.push(socket)
    sockets.push(socket)
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const out: { client: Socket; accepted: Socket }[] = []
  for (let i = 0; i < n; i++) {
    const client = connect(port, '127.0.0.1')
    sockets.push(client)
    await once(client, 'connect')
    while (accepted.length <= i) await new Promise((resolve) => setImmediate(resolve))
    out.push({ client, accepted: accepted[i]! })
  }
  return out
}

/** One client and the server's side of it. */
const pair = async () => (await pairs(1))[0]!

const waitUntil = async (done: () => boolean, ms = 5000) => {
  const end = Date.now() + ms
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

describe('reads into a shared buffer', () => {
  test('this node supports it (the fast path would otherwise read as node does, and lose what it buys)', () => {
    expect(sharedReadsSupported).toBe(true)
  })

  test('two sockets sending at once: each gets its own bytes, in order, and a chunk kept is never changed by a later read', async () => {
    const [a, b] = await pairs(2)
    const got = new Map<Socket, Buffer[]>([
      [a!.accepted, []],
      [b!.accepted, []],
    ])
    for (const { accepted } of [a!, b!]) expect(readShared(accepted, (chunk) => got.get(accepted)!.push(chunk))).toBe(true)
    const sent = [randomBytes(300_000), randomBytes(300_000)]
    // Note: written in parts, alternating, so the reads of the two sockets interleave.
    for (let at = 0; at < sent[0]!.length; at += 1000) {
      a!.client.write(sent[0]!.subarray(at, at + 1000))
      b!.client.write(sent[1]!.subarray(at, at + 1000))
    }
    const length = (s: Socket) => got.get(s)!.reduce((n, c) => n + c.length, 0)
    await waitUntil(() => length(a!.accepted) === sent[0]!.length && length(b!.accepted) === sent[1]!.length)
    expect(Buffer.concat(got.get(a!.accepted)!).equals(sent[0]!)).toBe(true)
    expect(Buffer.concat(got.get(b!.accepted)!).equals(sent[1]!)).toBe(true)
    expect(got.get(a!.accepted)!.length).toBeGreaterThan(1)
  })

  test('pause stops the reads (the bytes wait in the kernel), resume starts them; the FIN still ends the socket', async () => {
    const { client, accepted } = await pair()
    const got: Buffer[] = []
    readShared(accepted, (chunk) => got.push(chunk))
    client.write('first')
    await waitUntil(() => got.length === 1)
    accepted.pause()
    client.write('second')
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(Buffer.concat(got).toString()).toBe('first')
    const ended = once(accepted, 'end')
    client.end()
    accepted.resume()
    await ended
    expect(Buffer.concat(got).toString()).toBe('firstsecond')
  })

  test('bytes the Readable holds already still come as data; the reads after them come to the callback', async () => {
    const { client, accepted } = await pair()
    const got: string[] = []
    accepted.unshift(Buffer.from('held,'))
    accepted.on('data', (chunk: Buffer) => got.push(chunk.toString()))
    readShared(accepted, (chunk) => got.push(chunk.toString()))
    client.write('read')
    await waitUntil(() => got.join('') === 'held,read')
  })

  test('pushReads: back to node delivery, data events as before, every byte once and in order', async () => {
    const { client, accepted } = await pair()
    const direct: Buffer[] = []
    readShared(accepted, (chunk) => direct.push(chunk))
    client.write('one')
    await waitUntil(() => direct.length === 1)
    pushReads(accepted)
    const data: Buffer[] = []
    accepted.on('data', (chunk: Buffer) => data.push(chunk))
    const sent = randomBytes(200_000)
    client.end(sent)
    await once(accepted, 'end')
    expect(Buffer.concat(direct).toString()).toBe('one')
    expect(Buffer.concat(data).equals(sent)).toBe(true)
  })

  test('dropShared: each read counted, nothing delivered, and pause still holds the rest in the kernel', async () => {
    const { client, accepted } = await pair()
    readShared(accepted, () => {
      throw new Error('not delivered')
    })
    let dropped = 0
    expect(
      dropShared(accepted, (n) => {
        dropped += n
        if (dropped >= 100_000) accepted.pause()
      }),
    ).toBe(true)
    client.write(randomBytes(1_000_000))
    await waitUntil(() => dropped >= 100_000)
    await new Promise((resolve) => setTimeout(resolve, 100))
    // Note: pause stops the reads at once: at most the read that crossed the bound beyond it.
    expect(dropped).toBeLessThan(100_000 + 64 * 1024)
  })

  test('a socket not read by readShared is left alone by dropShared and pushReads', async () => {
    const { accepted } = await pair()
    expect(dropShared(accepted, () => undefined)).toBe(false)
    pushReads(accepted)
    expect(Object.getOwnPropertySymbols(accepted).filter((s) => s.description === 'kBuffer').map((s) => (accepted as unknown as Record<symbol, unknown>)[s])).toEqual([null])
  })
})
