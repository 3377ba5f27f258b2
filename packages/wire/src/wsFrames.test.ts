import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { EventEmitter } from 'node:events'
import * as ws from 'ws'
import { type ClientFrame, moreBytes, readFrame, textFrame, wsTakes } from './wsFrames.js'

// The frame reader against ws's own Receiver as the oracle: for any sequence of client frames
// (plain ones and every kind it leaves to ws), what it reads is exactly what ws reads from the
// same bytes, it stops at a frame boundary, and ws reading from there on sees what it would have
// seen anyway. Split anywhere, the same. And ws reads the server frames made here.

// Note: ws's frame reader and writer, which its type declarations do not describe.
type Receiver = EventEmitter & { write(chunk: Buffer): boolean }
const { Receiver, Sender } = ws as unknown as {
  Receiver: new (options: { isServer: boolean; maxPayload: number }) => Receiver
  Sender: { frame(data: Buffer, options: { opcode: number; fin: boolean; mask: boolean; rsv1: boolean; readOnly: boolean }): (Buffer | string)[] }
}

const maxPayload = 1024
type Event = { kind: 'message' | 'ping' | 'pong' | 'error' | 'close'; payload: string }

/** What ws's server-side Receiver reports for `bytes`, in order (it stops at its first error or close frame). */
function wsEvents(bytes: Buffer, isServer = true): Promise<Event[]> {
  const receiver = new Receiver({ isServer, maxPayload })
  const events: Event[] = []
  receiver.on('message', (data: Buffer, isBinary: boolean) => events.push({ kind: 'message', payload: `${isBinary ? 'binary' : 'text'}:${data.toString('hex')}` }))
  receiver.on('ping', (data: Buffer) => events.push({ kind: 'ping', payload: data.toString('hex') }))
  receiver.on('pong', (data: Buffer) => events.push({ kind: 'pong', payload: data.toString('hex') }))
  receiver.on('conclude', (code: number) => events.push({ kind: 'close', payload: String(code) }))
  receiver.on('error', (error: Error & { code?: string }) => events.push({ kind: 'error', payload: error.code ?? error.message }))
  // Note: a copy: ws unmasks in place.
  receiver.write(Buffer.from(bytes))
  return new Promise((resolve) => setImmediate(() => resolve(events)))
}

const asEvent = (frame: ClientFrame): Event =>
  frame.opcode === 1 ? { kind: 'message', payload: `text:${frame.payload.toString('hex')}` } : { kind: frame.opcode === 9 ? 'ping' : 'pong', payload: frame.payload.toString('hex') }

/**
 * Reads `bytes` as the socket handler does, arriving in `parts`: the frames read, where ws takes
 * over (undefined: never) and the bytes it is handed from there (as the reader left them: it unmasks in place).
 */
function readAll(bytes: Buffer, cuts: readonly number[]): { frames: ClientFrame[]; handedAt: number | undefined; rest: Buffer } {
  const frames: ClientFrame[] = []
  let pending = Buffer.alloc(0)
  let consumed = 0
  const points = [...new Set([...cuts.filter((c) => c > 0 && c < bytes.length), bytes.length])].sort((a, b) => a - b)
  let from = 0
  for (const to of points) {
    const buffer = Buffer.concat([pending, bytes.subarray(from, to)])
    from = to
    let at = 0
    for (;;) {
      const read = readFrame(buffer, at, maxPayload)
      if (read === moreBytes) break
      if (read === wsTakes) return { frames, handedAt: consumed + at, rest: Buffer.concat([buffer.subarray(at), bytes.subarray(from)]) }
      frames.push(read.frame)
      at = read.end
    }
    consumed += at
    pending = buffer.subarray(at)
  }
  return { frames, handedAt: pending.length > 0 ? consumed : undefined, rest: pending }
}

type Spec = { opcode: number; data: Buffer; fin: boolean; mask: boolean; rsv1: boolean }
const frameBytes = ({ opcode, data, fin, mask, rsv1 }: Spec) => Buffer.concat(Sender.frame(data, { opcode, fin, mask, rsv1, readOnly: true }).map((part) => Buffer.from(part)))
const plain = (opcode: number, data: Buffer): Spec => ({ opcode, data, fin: true, mask: true, rsv1: false })

const utf8Text = fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => Buffer.from(s))
const spec: fc.Arbitrary<Spec> = fc.oneof(
  { weight: 8, arbitrary: fc.oneof(utf8Text, fc.uint8Array({ minLength: 100, maxLength: 400 }).map((b) => Buffer.from(Buffer.from(b).toString('base64')))).map((d) => plain(1, d)) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(9, 10), fc.uint8Array({ maxLength: 125 })).map(([opcode, d]) => plain(opcode, Buffer.from(d))) },
  fc.constantFrom(
    plain(1, Buffer.from([0xc3, 0x28])), // invalid UTF-8
    plain(1, Buffer.alloc(maxPayload + 1, 97)), // over the limit
    plain(2, Buffer.from('binary')),
    plain(8, Buffer.from([0x03, 0xe8])), // close 1000
    plain(9, Buffer.alloc(126, 1)), // a control frame too long
    { ...plain(1, Buffer.from('fragment')), fin: false },
    { ...plain(1, Buffer.from('unmasked')), mask: false },
    { ...plain(1, Buffer.from('rsv1')), rsv1: true },
    plain(3, Buffer.from('reserved opcode')),
  ),
)

describe('the WebSocket frame reader', () => {
  test('behavior: it reads exactly what ws reads, stops at a frame boundary, and ws from there sees what it would have seen', async () => {
    let read = 0
    let handed = 0
    await fc.assert(
      fc.asyncProperty(fc.array(spec, { minLength: 1, maxLength: 8 }), fc.array(fc.nat({ max: 4000 }), { maxLength: 4 }), async (specs, cuts) => {
        const bytes = Buffer.concat(specs.map(frameBytes))
        const oracle = await wsEvents(bytes)
        const { frames, handedAt, rest } = readAll(bytes, cuts)
        read += frames.length
        expect(frames.map(asEvent)).toEqual(oracle.slice(0, frames.length))
        if (handedAt === undefined) {
          expect(oracle.length).toBe(frames.length)
          return
        }
        handed++
        expect(rest).toEqual(bytes.subarray(handedAt))
        expect(await wsEvents(rest)).toEqual(oracle.slice(frames.length))
      }),
      { numRuns: 1500 },
    )
    expect(read).toBeGreaterThan(1500)
    expect(handed).toBeGreaterThan(300)
  })

  test('args: a frame cut at every byte is more bytes until it is whole', () => {
    const bytes = frameBytes(plain(1, Buffer.from('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}'.repeat(4))))
    for (let cut = 0; cut < bytes.length; cut++) expect(readFrame(bytes.subarray(0, cut), 0, maxPayload)).toBe(moreBytes)
    expect(readFrame(bytes, 0, maxPayload)).toMatchObject({ end: bytes.length })
  })

  test('behavior: the server frames made here are read by ws as the same text, at every length class', async () => {
    for (const length of [0, 1, 125, 126, 65535, 65536, 70000]) {
      const text = 'é'.repeat(Math.floor(length / 2)) + 'x'.repeat(length % 2)
      const receiver = new Receiver({ isServer: false, maxPayload: 0 })
      const got: string[] = []
      receiver.on('message', (data: Buffer) => got.push(data.toString('utf8')))
      receiver.write(textFrame(text))
      receiver.write(textFrame(Buffer.from(text)))
      await new Promise((resolve) => setImmediate(resolve))
      expect(got).toEqual([text, text])
    }
  })
})
