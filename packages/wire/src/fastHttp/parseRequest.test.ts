import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { type AddressInfo, connect, type Socket } from 'node:net'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type FastRequest, handOff, incomplete, type ParseLimits, parseRequest } from './parseRequest.js'

// The fast path's parser against node:http itself (llhttp) as the oracle: for every input it
// either hands off, or yields exactly what a real node:http server in this test receives (method,
// path, the headers it uses, body, keep-alive, and where the request ends: the next request on the
// connection must be the next one node:http sees). It never answers 400 itself: node:http does,
// on the handed-off bytes. Cases of our own for each kind of request llhttp refuses (its
// test/request/*.md), then a property-based fuzzer of mutated requests.

const limits: ParseLimits = { maxHeadBytes: 8192, maxHeaders: 64, maxBodyBytes: 1 << 20 }
const sentinel = 'GET /sentinel HTTP/1.1\r\nHost: s\r\n\r\n'

type Seen = { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer; keepAlive: boolean }
type OracleResult = { requests: Seen[]; error: string | undefined }

let server: Server
let port: number
type Run = { requests: Seen[]; error: string | undefined; done: () => void; last: string }
// Note: by the client's port (the server side's remotePort), so a late event of an earlier connection never lands in another run.
const runs = new Map<number, Run>()

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const run = runs.get(req.socket.remotePort ?? 0)
      run?.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), keepAlive: res.shouldKeepAlive })
      res.writeHead(200, { 'content-length': '0' })
      res.end()
      if (run !== undefined && (req.url === run.last || run.last === '')) run.done()
    })
  })
  server.on('clientError', (error: Error & { code?: string }, socket) => {
    const run = runs.get((socket as Socket).remotePort ?? 0)
    socket.destroy()
    if (run === undefined) return
    run.error = error.code ?? error.message
    run.done()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
})

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

/**
 * What node:http makes of `bytes` followed by the sentinel request (unless the request asks to
 * close the connection: data after it is an error), on a fresh connection.
 */
function oracle(bytes: Buffer, withSentinel: boolean): Promise<OracleResult> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const run: Run = { requests: [], error: undefined, done: () => finish(), last: withSentinel ? '/sentinel' : '' }
    let finished = false
    const finish = () => {
      if (finished) return
      finished = true
      clearTimeout(timer)
      runs.delete(socket.localPort ?? 0)
      socket.destroy()
      resolve({ requests: run.requests, error: run.error })
    }
    // Note: node:http still waiting (a longer body than sent) after this long: what it saw so far.
    const timer = setTimeout(finish, 300)
    socket.on('error', () => undefined)
    socket.on('close', finish)
    socket.once('connect', () => {
      runs.set(socket.localPort ?? 0, run)
      socket.write(withSentinel ? Buffer.concat([bytes, Buffer.from(sentinel, 'latin1')]) : bytes)
    })
  })
}

/** Checks one input: a handoff needs nothing; a parsed request must be exactly what node:http saw. */
async function agrees(bytes: Buffer): Promise<'fast' | 'handOff' | 'incomplete'> {
  const verdict = parseRequest(bytes, limits)
  if (verdict === handOff) return 'handOff'
  if (verdict === incomplete) return 'incomplete'
  if (bytes.length < verdict.end) return 'incomplete'
  const seen = await oracle(bytes.subarray(0, verdict.end), verdict.keepAlive)
  const context = `input ${JSON.stringify(bytes.toString('latin1'))}: node ${JSON.stringify({ ...seen, requests: seen.requests.map((r) => ({ ...r, body: r.body.toString('latin1') })) })}`
  expect(seen.error, context).toBeUndefined()
  const path = `/${verdict.network === undefined ? '' : `${verdict.network}/`}v3/${verdict.key}`
  expect(seen.requests.map((r) => r.url), context).toEqual(verdict.keepAlive ? [path, '/sentinel'] : [path])
  const [request] = seen.requests as [Seen]
  expect(request.method, context).toBe('POST')
  expect(request.body.equals(bytes.subarray(verdict.bodyStart, verdict.end)), context).toBe(true)
  const { headers } = request
  expect(
    {
      host: verdict.host,
      contentType: verdict.contentType,
      origin: verdict.origin,
      userAgent: verdict.userAgent,
      authorization: verdict.authorization,
      enableFailover: verdict.enableFailover,
      keepAlive: verdict.keepAlive,
    },
    context,
  ).toEqual({
    host: headers.host,
    contentType: headers['content-type'],
    origin: headers.origin,
    userAgent: headers['user-agent'],
    authorization: headers.authorization,
    enableFailover: headers['enable-failover'],
    keepAlive: request.keepAlive,
  })
  return 'fast'
}

const crlf = (lines: readonly string[], body = '') => Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}`, 'latin1')
const body = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}'
const good = (extra: readonly string[] = [], { line = 'POST /v3/abc_DEF-123 HTTP/1.1', cl = String(body.length), payload = body } = {}) =>
  crlf([line, 'Host: mainnet.example.com', 'Content-Type: application/json', ...(cl === '' ? [] : [`Content-Length: ${cl}`]), ...extra], payload)

describe('parseRequest', () => {
  test('default: plain JSON-RPC POSTs are parsed exactly as node:http reads them, pipelined ones too', async () => {
    expect(await agrees(good())).toBe('fast')
    expect(await agrees(good([], { line: 'POST /mainnet/v3/k HTTP/1.1' }))).toBe('fast')
    expect(await agrees(good(['Origin: https://app.example', 'User-Agent: viem/2.0', 'Authorization: Basic OnNlY3JldA==', 'Enable-Failover: true']))).toBe('fast')
    expect(await agrees(good(['Connection: close']))).toBe('fast')
    expect(await agrees(good(['Connection: Keep-Alive', 'X-Other:\tv a l\tu e ', 'Accept: */*']))).toBe('fast')
    expect(await agrees(good(['content-length-x: 9', 'CONTENT-TYPE2: x']))).toBe('fast')
    expect(await agrees(good([], { cl: '0', payload: '' }))).toBe('fast')
    expect(await agrees(good([], { cl: '007', payload: 'abcdefg' }))).toBe('fast')
    // A second request right behind the first: the first ends where node:http's does.
    const verdict = parseRequest(Buffer.concat([good(), good()]), limits) as FastRequest
    expect(verdict.end).toBe(good().length)
    // Any prefix of a request is incomplete, never a verdict on part of it.
    const whole = good()
    for (let cut = 1; cut < whole.length - body.length; cut++) expect(parseRequest(whole.subarray(0, cut), limits)).toBe(incomplete)
  })

  // Our own cases for each kind of request llhttp refuses or reads differently: every one is
  // handed to node:http, which then answers it (400, 413, 431, …) as before.
  const refused: [string, Buffer][] = [
    ['another method', crlf(['PUT /v3/k HTTP/1.1', 'Host: h', 'Content-Length: 0'])],
    ['a lowercase method', crlf(['post /v3/k HTTP/1.1', 'Host: h', 'Content-Length: 0'])],
    ['a longer method', crlf(['POSTX /v3/k HTTP/1.1', 'Host: h', 'Content-Length: 0'])],
    ['two spaces after the method', good([], { line: 'POST  /v3/k HTTP/1.1' })],
    ['a tab after the method', good([], { line: 'POST\t/v3/k HTTP/1.1' })],
    ['HTTP/1.0', good([], { line: 'POST /v3/k HTTP/1.0' })],
    ['HTTP/2.0 in an HTTP/1 line', good([], { line: 'POST /v3/k HTTP/2.0' })],
    ['a version with three digits', good([], { line: 'POST /v3/k HTTP/1.10' })],
    ['an unknown protocol', good([], { line: 'POST /v3/k ICE/1.0' })],
    ['a space after the version', good([], { line: 'POST /v3/k HTTP/1.1 ' })],
    ['an absolute URL', good([], { line: 'POST http://h/v3/k HTTP/1.1' })],
    ['the asterisk form', good([], { line: 'POST * HTTP/1.1' })],
    ['a query', good([], { line: 'POST /v3/k?x=1 HTTP/1.1' })],
    ['a fragment', good([], { line: 'POST /v3/k#x HTTP/1.1' })],
    ['percent-encoding', good([], { line: 'POST /v3/%6b HTTP/1.1' })],
    ['a trailing slash', good([], { line: 'POST /v3/k/ HTTP/1.1' })],
    ['another path', good([], { line: 'POST /health HTTP/1.1' })],
    ['a space in the path', good([], { line: 'POST /v3/a b HTTP/1.1' })],
    ['a bare LF ending the request line', Buffer.from(`POST /v3/k HTTP/1.1\nHost: h\r\nContent-Length: 0\r\n\r\n`, 'latin1')],
    ['headers separated by a bare CR', good(['Foo: 1\rBar: 2'])],
    ['headers separated by a bare LF', good(['Foo: 1\nTransfer-Encoding: chunked'])],
    ['an empty header value ended by a bare CR', good(['x:\rTransfer-Encoding: chunked'])],
    ['a CR then another character after the headers', Buffer.from(`POST /v3/k HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\rZ\r\n\r\n`, 'latin1')],
    ['only LFs', Buffer.from(`POST /v3/k HTTP/1.1\nHost: h\nContent-Length: 0\n\n`, 'latin1')],
    ['obs-fold', good(['Foo: bar', ' continued'])],
    ['a space before the first header', good([' Host2: x'])],
    ['a header name with a space before the colon', good(['Foo : bar'])],
    ['a header name with a space', good(['Fo o: bar'])],
    ['a header name with @', good(['Fo@: bar'])],
    ['a header name with a control character', good(['Foo\x01test: bar'])],
    ['an empty header name', good([': bar'])],
    ['a header line without a colon', good(['name'])],
    ['NUL in a header value', good(['Foo: b\x00r'])],
    ['DEL in a header value', good(['Foo: b\x7fr'])],
    ['obs-text in a header value', good(['Foo: caf\xe9'])],
    ['an escape character in a header value', good(['Origin: \x1b[2J'])],
    ['Content-Length overflow', good([], { cl: '1000000000000000000000', payload: '' })],
    ['a signed Content-Length', good([], { cl: '+47' })],
    ['a negative Content-Length', good([], { cl: '-1' })],
    ['a Content-Length list', good([], { cl: `${body.length}, ${body.length}` })],
    ['a Content-Length with a space inside', good([], { cl: '4 7' })],
    ['a hexadecimal Content-Length', good([], { cl: '0x2f' })],
    ['an empty Content-Length', crlf(['POST /v3/k HTTP/1.1', 'Host: h', 'Content-Length:'])],
    ['a tab after the Content-Length (found by the fuzzer: llhttp refuses it)', good([], { cl: `${body.length}\t` })],
    ['a tab after Connection: close', good(['Connection: close\t'])],
    ['two Content-Lengths', good([`Content-Length: ${body.length}`])],
    ['two different Content-Lengths', good(['Content-Length: 3'])],
    ['no Content-Length', good([], { cl: '' })],
    ['Content-Length and Transfer-Encoding', good(['Transfer-Encoding: chunked'])],
    ['Transfer-Encoding alone', crlf(['POST /v3/k HTTP/1.1', 'Host: h', 'Transfer-Encoding: chunked'], '2f\r\n' + body + '\r\n0\r\n\r\n')],
    ['Transfer-Encoding identity', good(['Transfer-Encoding: identity'])],
    ['Transfer-Encoding with a trailing tab in the name', good(['Transfer-Encoding\t: chunked'])],
    ['Transfer-Encoding in odd case', good(['tRANSFER-eNCODING: chunked'])],
    ['Expect: 100-continue', good(['Expect: 100-continue'])],
    ['an Upgrade', good(['Upgrade: websocket', 'Connection: Upgrade'])],
    ['Connection: upgrade alone', good(['Connection: upgrade'])],
    ['a Connection list', good(['Connection: close, TE'])],
    ['two Connection headers', good(['Connection: close', 'Connection: keep-alive'])],
    ['HTTP2-Settings', good(['HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA'])],
    ['no Host', crlf(['POST /v3/k HTTP/1.1', `Content-Length: ${body.length}`], body)],
    ['two Hosts', good(['Host: other'])],
    ['two Origins', good(['Origin: a', 'Origin: b'])],
    ['two Authorizations', good(['Authorization: a', 'Authorization: b'])],
    ['a body over the limit', good([], { cl: String(limits.maxBodyBytes + 1), payload: '' })],
    ['a head over the limit', good([`X-Big: ${'a'.repeat(limits.maxHeadBytes)}`])],
    ['more headers than the limit', good(Array.from({ length: limits.maxHeaders }, (_, i) => `X-${i}: v`))],
  ]
  test.each(refused)('error: %s is handed to node:http', async (_name, bytes) => {
    expect(parseRequest(bytes, limits)).toBe(handOff)
  })

  test('behavior: the fuzzer: mutated requests are handed off or read exactly as node:http reads them; nothing smuggled', async () => {
    const interesting = [
      '\r', '\n', '\r\n', ' ', '\t', ':', '\x00', '\x7f', '\xff', ',', '+', '-', '0', '9', 'a', 'Z', '/', '?', '#', '%',
      '\r\nTransfer-Encoding: chunked', '\r\nContent-Length: 0', '\r\nContent-Length: 5', '\r\n Content-Length: 5',
      '\r\nConnection: close', '\r\nHost: x', '\r\nExpect: 100-continue', '\r\n\r\n', 'GET /sentinel HTTP/1.1\r\n',
    ]
    const headerName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/)
    const headerValue = fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,30}[\x21-\x7e])?$/)
    const request = fc.record({
      network: fc.option(fc.constantFrom('mainnet', 'x-1', 'Sepolia'), { nil: undefined }),
      key: fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/),
      extra: fc.array(fc.tuple(headerName, headerValue), { maxLength: 5 }),
      connection: fc.constantFrom(undefined, 'close', 'keep-alive', 'Keep-Alive'),
      body: fc.string({ maxLength: 64 }),
    })
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.constantFrom(...interesting) }),
      fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), text: fc.constantFrom(...interesting) }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 4 }) }),
    )
    let cases = 0
    const outcomes = { fast: 0, handOff: 0, incomplete: 0 }
    await fc.assert(
      fc.asyncProperty(request, fc.array(mutation, { maxLength: 3 }), async (r, mutations) => {
        const payload = Buffer.from(r.body, 'utf8').toString('latin1')
        const lines = [
          `POST /${r.network === undefined ? '' : `${r.network}/`}v3/${r.key} HTTP/1.1`,
          'Host: mainnet.example.com',
          `Content-Length: ${payload.length}`,
          ...r.extra.map(([n, v]) => `${n}: ${v}`),
          ...(r.connection === undefined ? [] : [`Connection: ${r.connection}`]),
        ]
        let text = `${lines.join('\r\n')}\r\n\r\n${payload}`
        for (const m of mutations) {
          const at = m.at % (text.length + 1)
          if (m.kind === 'insert') text = text.slice(0, at) + m.text + text.slice(at)
          else if (m.kind === 'replace') text = text.slice(0, at) + m.text + text.slice(at + 1)
          else text = text.slice(0, at) + text.slice(at + m.length)
        }
        cases++
        outcomes[await agrees(Buffer.from(text, 'latin1'))]++
      }),
      { numRuns: 4000 },
    )
    process.stderr.write(`parseRequest fuzzer: ${cases} cases: ${outcomes.fast} read as node:http reads them, ${outcomes.handOff} handed off, ${outcomes.incomplete} incomplete\n`)
    // Note: the generator must reach both sides, or the property says nothing.
    expect(outcomes.fast).toBeGreaterThan(200)
    expect(outcomes.handOff).toBeGreaterThan(200)
  }, 120_000)
})
