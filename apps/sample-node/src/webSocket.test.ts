import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import { type SpawnedNode, spawnSampleNode } from './_test/spawnSampleNode.js'

type Message = { id?: number; result?: unknown; error?: { code: number }; method?: string; params?: { subscription: string; result: { number: string; hash: string } } }

describe('sample-node over WebSocket (real process)', () => {
  let node: SpawnedNode

  beforeAll(async () => {
    // Every 150 ms three new blocks, announced as one head.
    node = await spawnSampleNode(['--port', '0', '--synthetic', '300', '--seed', '3', '--block-time', '150', '--burst', '3'])
  })
  afterAll(async () => {
    await node?.stop()
  })

  test('behavior: the same methods on the HTTP port, newHeads with one notification per burst, unsubscribe', async () => {
    const socket = new WebSocket(node.url.replace('http://', 'ws://'))
    const messages: Message[] = []
    const waiters: (() => void)[] = []
    socket.on('message', (data) => {
      messages.push(JSON.parse(String(data)) as Message)
      for (const w of waiters.splice(0)) w()
    })
    await new Promise((resolve) => socket.once('open', resolve))
    const next = async (match: (m: Message) => boolean): Promise<Message> => {
      for (;;) {
        const found = messages.find(match)
        if (found) {
          messages.splice(messages.indexOf(found), 1)
          return found
        }
        await new Promise<void>((resolve) => waiters.push(resolve))
      }
    }
    socket.send('{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}')
    expect((await next((m) => m.id === 1)).result).toBe('0x539')
    socket.send('{"jsonrpc":"2.0","id":2,"method":"eth_subscribe","params":["newHeads"]}')
    const id = (await next((m) => m.id === 2)).result as string
    expect(id).toMatch(/^0x[0-9a-f]{32}$/)
    const heads: { number: string; hash: string }[] = []
    for (let i = 0; i < 3; i++) heads.push((await next((m) => m.method === 'eth_subscription')).params!.result)
    expect(Number(heads[1]!.number) - Number(heads[0]!.number)).toBe(3)
    expect(Number(heads[2]!.number) - Number(heads[1]!.number)).toBe(3)
    // The notified head is the block the node serves at that number.
    socket.send(`{"jsonrpc":"2.0","id":3,"method":"eth_getBlockByNumber","params":["${heads[2]!.number}",false]}`)
    expect(((await next((m) => m.id === 3)).result as { hash: string }).hash).toBe(heads[2]!.hash)
    socket.send(`{"jsonrpc":"2.0","id":4,"method":"eth_unsubscribe","params":["${id}"]}`)
    expect((await next((m) => m.id === 4)).result).toBe(true)
    socket.send('{"jsonrpc":"2.0","id":5,"method":"eth_subscribe","params":["logs"]}')
    expect((await next((m) => m.id === 5)).error?.code).toBe(-32602)
    socket.close()
  }, 20_000)
})
