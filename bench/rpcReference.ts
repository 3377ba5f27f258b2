import { createServer } from 'node:http'
import express from 'express'
import pg from 'pg'

// The two reference servers of bench/rpc.ts, each run as its own process:
//   ceiling <port> <body-bytes>   bare node:http answering every request with a fixed body
//   naive <port> <database-url>   one Express 5 route, express.json(), one pg query per request
// Note: the naive build is deliberately what a first version would look like (unnamed statement,
// row mapped by hand); its SQL lives here, outside packages/db, because it is a baseline only.

const [mode, portText, arg] = process.argv.slice(2)
const port = Number(portText)

function ready(server: { address(): unknown }): void {
  process.stdout.write(`listening ${(server.address() as { port: number }).port}\n`)
}

if (mode === 'ceiling') {
  const body = Buffer.from(`{"jsonrpc":"2.0","id":1,"result":"${'0'.repeat(Math.max(0, Number(arg) - 36))}"}`)
  const server = createServer((req, res) => {
    req.on('data', () => undefined)
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length })
      res.end(body)
    })
  })
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
  process.stderr.write('usage: rpcReference.ts ceiling <port> <body-bytes> | naive <port> <database-url>\n')
  process.exitCode = 2
}
