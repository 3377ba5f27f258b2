import type { Hex } from '@uncle-rpc/chain'
import type { Db } from '@uncle-rpc/db'
import { canonicalBlocks, getUncle } from '@uncle-rpc/db/chain'

// Test-only: what the database holds against what the node serves, over JSON-RPC batches.

type RpcBlock = { number: Hex; hash: Hex; parentHash: Hex; uncles: Hex[] }

/** Sends JSON-RPC requests in batches of 1,000 and returns the results in order. */
export async function rpcBatch<T>(url: string, requests: { method: string; params: unknown[] }[]): Promise<T[]> {
  const results: T[] = []
  for (let i = 0; i < requests.length; i += 1000) {
    const chunk = requests.slice(i, i + 1000).map((r, k) => ({ jsonrpc: '2.0', id: i + k, ...r }))
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(chunk) })
    const answers = (await response.json()) as { id: number; result: T }[]
    answers.sort((a, b) => a.id - b.id)
    results.push(...answers.map((a) => a.result))
  }
  return results
}

/** The node's blocks `from … to` (hashes and uncle hashes). */
export async function nodeBlocks(url: string, from: bigint, to: bigint): Promise<RpcBlock[]> {
  const requests = []
  for (let n = from; n <= to; n++) requests.push({ method: 'eth_getBlockByNumber', params: [`0x${n.toString(16)}`, false] })
  return rpcBatch<RpcBlock>(url, requests)
}

export async function nodeHead(url: string): Promise<bigint> {
  const [head] = await rpcBatch<Hex>(url, [{ method: 'eth_blockNumber', params: [] }])
  return BigInt(head as Hex)
}

/**
 * Differences between the stored canonical chain of `network` and the node's chain over
 * `from … head` (missing, extra or different blocks, missing uncles); empty when they agree.
 */
export async function compareWithNode(
  db: Db,
  { network, url, from, head }: { network: string; url: string; from: bigint; head: bigint },
): Promise<string[]> {
  const node = await nodeBlocks(url, from, head)
  const stored = await canonicalBlocks(db, { network, from, to: head + 1_000_000n })
  const byNumber = new Map(stored.map((s) => [s.number, s.hash]))
  const problems: string[] = []
  for (const block of node) {
    const n = BigInt(block.number)
    const hash = byNumber.get(n)
    if (hash !== block.hash) problems.push(`block ${n}: node ${block.hash}, database ${hash ?? 'none'}`)
    byNumber.delete(n)
    for (const [index, uncleHash] of block.uncles.entries()) {
      const uncle = await getUncle(db, { network, blockHash: block.hash, index })
      if (uncle?.hash !== uncleHash) problems.push(`block ${n}: uncle ${index} ${uncleHash} not stored`)
    }
  }
  for (const [n, hash] of byNumber) problems.push(`block ${n}: database has ${hash}, node has none`)
  return problems
}
