import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { rememberHead, repeatedHead } from './headMemo.js'
import { type FastRequest, type ParseLimits, parseRequest } from './parseRequest.js'

// The memo must never read a head differently from parseRequest: whatever it returns for some
// bytes is exactly parseRequest's verdict on them. Heads as clients send them, then the next head
// with other Content-Length digits, a byte changed, or cut short.

const limits: ParseLimits = { maxHeadBytes: 8192, maxHeaders: 64, maxBodyBytes: 1 << 20 }

const heads = [
  'POST /v3/abc HTTP/1.1\r\nHost: 127.0.0.1:8545\r\nContent-Type: application/json\r\nContent-Length: 120\r\n\r\n',
  'POST /mainnet/v3/key_1 HTTP/1.1\r\nhost: rpc.example\r\nconnection: keep-alive\r\ncontent-type: application/json\r\nuser-agent: viem/2\r\ncontent-length: 7\r\naccept: */*\r\n\r\n',
  'POST /v3/k HTTP/1.1\r\nContent-Length:   42\r\nHost: h\r\nOrigin: https://app.example\r\nAuthorization: Basic OmFiYw==\r\nEnable-Failover: true\r\nConnection: close\r\n\r\n',
]

function parsed(text: string): FastRequest {
  const request = parseRequest(Buffer.from(text, 'latin1'), limits)
  if (typeof request !== 'object') throw new Error(`not a fast request: ${text}`)
  return request
}

/** `head` with its Content-Length digits replaced by `digits`. */
function withLength(head: string, digits: string): string {
  const request = parsed(head)
  return head.slice(0, request.lengthStart) + digits + head.slice(request.lengthEnd)
}

const memoOf = (head: string) => rememberHead(Buffer.from(head, 'latin1'), parsed(head))

describe('repeatedHead', () => {
  test('parseRequest finds the Content-Length digits where they are', () => {
    for (const head of heads) {
      const request = parsed(head)
      expect(head.slice(request.lengthStart, request.lengthEnd)).toMatch(/^[0-9]+$/)
      expect(head.slice(request.lengthEnd, request.lengthEnd + 2)).toBe('\r\n')
    }
  })

  test('the same head with any Content-Length of 1 to 15 digits within the limit is read without a parse, as parseRequest reads it', () => {
    fc.assert(
      fc.property(fc.constantFrom(...heads), fc.stringMatching(/^[0-9]{1,15}$/), fc.uint8Array({ maxLength: 64 }), (head, digits, body) => {
        const bytes = Buffer.concat([Buffer.from(withLength(head, digits), 'latin1'), body])
        const read = repeatedHead(memoOf(head), bytes, limits)
        const expected = parseRequest(bytes, limits)
        if (Number(digits) > limits.maxBodyBytes) expect(read).toBeUndefined()
        else expect(read).toEqual(expected)
      }),
      { numRuns: 2000 },
    )
  })

  test('a changed byte, a cut, or a longer number is either parsed or read exactly as parseRequest reads it', () => {
    const mutated = fc.constantFrom(...heads).chain((head) =>
      fc.tuple(
        fc.constant(head),
        fc.oneof(
          fc
            .tuple(fc.nat({ max: head.length - 1 }), fc.integer({ min: 0, max: 255 }))
            .map(([at, byte]) => withLength(head, '99').slice(0, at) + String.fromCharCode(byte) + withLength(head, '99').slice(at + 1)),
          fc.nat({ max: head.length }).map((at) => withLength(head, '5').slice(0, at)),
          fc.stringMatching(/^[0-9]{16,20}$/).map((digits) => withLength(head, digits)),
          fc.constantFrom('', ' 1', '1 ', '+1', '-1', '1.0', '0x1').map((digits) => withLength(head, digits)),
        ),
      ),
    )
    let read = 0
    fc.assert(
      fc.property(mutated, fc.uint8Array({ maxLength: 8 }), ([head, next], body) => {
        const bytes = Buffer.concat([Buffer.from(next, 'latin1'), body])
        const fields = repeatedHead(memoOf(head), bytes, limits)
        if (fields === undefined) return
        read++
        expect(fields).toEqual(parseRequest(bytes, limits))
      }),
      { numRuns: 1500 },
    )
    // Note: most single-byte changes land outside the digits and must miss; some land on a digit and still read.
    expect(read).toBeGreaterThan(0)
  })

  test('a head over the size limit is parsed (parseRequest hands it off), not read from the memo', () => {
    const head = heads[0]!
    const tight: ParseLimits = { ...limits, maxHeadBytes: head.length }
    const memo = rememberHead(Buffer.from(head, 'latin1'), parseRequest(Buffer.from(head, 'latin1'), tight) as FastRequest)
    expect(repeatedHead(memo, Buffer.from(withLength(head, '120'), 'latin1'), tight)).toBeDefined()
    expect(repeatedHead(memo, Buffer.from(withLength(head, '1200'), 'latin1'), tight)).toBeUndefined()
    expect(parseRequest(Buffer.from(withLength(head, '1200'), 'latin1'), tight)).toBe('handOff')
  })
})
