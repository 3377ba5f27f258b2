import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { createServer as createNetServer } from 'node:net'
import { attachFastPath, defaultRequestsPerTurn } from '@uncle-rpc/wire'
import express from 'express'
import pg from 'pg'
import { WebSocketServer } from 'ws'

// The two reference servers of bench/rpc.ts, each run as its own process:
//   ceiling <port> <body file>    bare node:http answering every request with the file's bytes
//   parse-floor <port> <body file> the same, after JSON.parse of each request body
//   net-floor <port> <body file>  node:net with no HTTP parser: a fixed response per request read
//   wire-floor <port> <body file> our HTTP fast path (packages/wire) whose serve() answers the file's bytes
//   ws-ceiling <port> <body file> bare ws server answering every message with the file's bytes
//   naive <port> <database-url>   one Express 5 route, express.json(), one pg query per request
// Note: the naive build is deliberately what a first version would look like (unnamed statement,
// row mapped by hand); its SQL lives here, outside packages/db, because it is a baseline only.

const [mode, portText, arg] = process.argv.slice(2)
// Note: exit through process.exit on a signal, so `node --cpu-prof` writes its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0))
const port = Number(portText)

function ready(server: { address(): unknown }): void {
  process.stdout.write(`listening ${(server.address() as { port: number }).port}\n`)
}

if (mode === 'ceiling') {
  const body = readFileSync(arg!)
  const server = createServer((req, res) => {
    req.on('data', () => undefined)
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length })
      res.end(body)
    })
  })
  server.listen(port, '127.0.0.1', () => ready(server))
} else if (mode === 'parse-floor') {
  // The least a JSON-RPC server does before answering: read the body as text and JSON.parse it.
  const body = readFileSync(arg!)
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'))
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length })
      res.end(body)
    })
  })
  server.listen(port, '127.0.0.1', () => ready(server))
} else if (mode === 'net-floor') {
  // The least any Node server does per request: node:net's read and write of a socket, no HTTP
  // parsing (a request is counted by its request line; wrk sends whole requests, never split
  // within "POST "), one fixed response per request. Above it is JavaScript; below it, libuv and
  // the kernel, which no Node server avoids.
  const body = readFileSync(arg!)
  const response = Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`, 'latin1'), body])
  const server = createNetServer((socket) => {
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => {
      let requests = 0
      for (let at = chunk.indexOf('POST '); at !== -1; at = chunk.indexOf('POST ', at + 5)) requests++
      for (let i = 0; i < requests; i++) socket.write(response)
    })
    socket.on('error', () => undefined)
  })
  server.listen(port, '127.0.0.1', () => ready(server))
} else if (mode === 'wire-floor') {
  // The byte-level layer of ours alone: the fast path's parser, head memo, turn budget and
  // response writing, with no JSON-RPC, key or cache behind it. Between it and the node:net floor
  // is the wire's cost; between it and ours, the rest of the request path's.
  const answer = { status: 200, body: readFileSync(arg!) }
  const server = createServer((_req, res) => res.writeHead(404).end())
  attachFastPath(
    server,
    { check: () => ({ ok: true, pass: undefined }), serve: () => answer, failed: () => ({ status: 500, body: '{}', close: true }), closing: () => false },
    { maxHeadBytes: 16 * 1024, maxHeaders: 100, maxBodyBytes: 5 * 1024 * 1024, requestTimeoutMs: 300_000, keepAliveTimeoutMs: 5_000, requestsPerTurn: defaultRequestsPerTurn },
  )
  server.listen(port, '127.0.0.1', () => ready(server))
} else if (mode === 'ws-ceiling') {
  // Note: the answer carries each message's id (the load generator matches answers by id): the
  // file's body with its id replaced, found by a scan of the message's first bytes.
  const text = readFileSync(arg!, 'utf8')
  const at = text.indexOf('"id":') + 5
  const prefix = text.slice(0, at)
  const suffix = text.slice(text.indexOf(',', at))
  const server = createServer()
  const wss = new WebSocketServer({ server, perMessageDeflate: false })
  wss.on('connection', (socket) =>
    socket.on('message', (data: Buffer) => {
      const head = data.toString('latin1', 0, 64)
      const from = head.indexOf('"id":') + 5
      socket.send(prefix + head.slice(from, head.indexOf(',', from)) + suffix)
    }),
  )
  server.listen(port, '127.0.0.1', () => ready(server))
} else if (mode === 'naive') {
  const pool = new pg.Pool({ connectionString: arg, max: 10 })
  const hex = (b: Buffer | null) => (b === null ? undefined : `0x${b.toString('hex')}`)
  const quantity = (v: string | number | null) => (v === null ? undefined : `0x${BigInt(v).toString(16)}`)
  const app = express()
  app.post('/v3/:key', express.json(), async (req, res) => {
    const { id, params } = req.body as { id: unknown; params: [string, string] }
    const { rows } = await pool.query(
      'select * from uncles where network = $1 and block_hash = $2 and index = $3',
      ['mainnet', Buffer.from(params[0].slice(2), 'hex'), Number(params[1])],
    )
    const r = rows[0]
    const result = r && {
      baseFeePerGas: quantity(r.base_fee_per_gas),
      difficulty: quantity(r.difficulty),
      extraData: hex(r.extra_data),
      gasLimit: quantity(r.gas_limit),
      gasUsed: quantity(r.gas_used),
      hash: hex(r.hash),
      logsBloom: hex(r.logs_bloom),
      miner: hex(r.miner),
      mixHash: hex(r.mix_hash),
      nonce: hex(r.nonce),
      number: quantity(r.number),
      parentHash: hex(r.parent_hash),
      receiptsRoot: hex(r.receipts_root),
      sha3Uncles: hex(r.sha3_uncles),
      size: quantity(r.size),
      stateRoot: hex(r.state_root),
      timestamp: quantity(r.timestamp),
      totalDifficulty: null,
      transactionsRoot: hex(r.transactions_root),
      uncles: [],
    }
    res.json({ jsonrpc: '2.0', id, result: result ?? null })
  })
  const server = app.listen(port, '127.0.0.1', () => ready(server))
} else {
  process.stderr.write('usage: rpcReference.ts ceiling|parse-floor|net-floor|wire-floor|ws-ceiling <port> <body file> | naive <port> <database-url>\n')
  process.exitCode = 2
}
