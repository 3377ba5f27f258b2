import type pg from 'pg'
import type { ChainCheck } from './summary.js'

// The end of a soak: is what the fleet indexed the node's chain? Every canonical block in the
// database against the node's canonical block at that height (hash and uncle hashes), every height
// from 0 to the node's head present, and the rows the schema would let be written twice counted.

type NodeBlock = { number: number; hash: string; uncles: string[] }

/** The node's canonical blocks `from`…`to` (eth_getBlockByNumber in batches of 500). */
export async function nodeBlocks(nodeUrl: string, from: number, to: number): Promise<NodeBlock[]> {
  const blocks: NodeBlock[] = []
  for (let start = from; start <= to; start += 500) {
    const ids = Array.from({ length: Math.min(500, to - start + 1) }, (_, i) => start + i)
    const body = JSON.stringify(ids.map((n) => ({ jsonrpc: '2.0', id: n, method: 'eth_getBlockByNumber', params: [`0x${n.toString(16)}`, false] })))
    const res = await fetch(nodeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    const answers = (await res.json()) as { id: number; result: { hash: string; uncles: string[] } | null }[]
    for (const a of answers.sort((x, y) => x.id - y.id)) {
      if (a.result === null) throw new Error(`the node has no block ${a.id}`)
      blocks.push({ number: a.id, hash: a.result.hash, uncles: a.result.uncles })
    }
  }
  return blocks
}

/** The node's head: number and hash. */
export async function nodeHead(nodeUrl: string): Promise<{ number: number; hash: string }> {
  const res = await fetch(nodeUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['latest', false] }),
  })
  const { result } = (await res.json()) as { result: { number: string; hash: string } }
  return { number: Number(result.number), hash: result.hash }
}

/** Hash (0x…) of the canonical block at `number` in the database, if indexed. */
export async function indexedHash(pool: pg.Pool, network: string, number: number): Promise<string | undefined> {
  const { rows } = await pool.query<{ hash: string }>(
    `select '0x' || encode(hash, 'hex') as hash from blocks where network = $1 and number = $2 and canonical`,
    [network, number],
  )
  return rows[0]?.hash
}

/**
 * Compares the database's canonical chain of `network` with `node` (the node's blocks 0…head).
 * Duplicates: the primary keys make a block or an uncle row impossible to store twice, so what is
 * counted is what they allow: two canonical blocks at one height, one uncle stored twice in a block.
 */
export async function checkChain(pool: pg.Pool, network: string, node: readonly NodeBlock[]): Promise<ChainCheck> {
  const { rows: blocks } = await pool.query<{ number: string; hash: string }>(
    `select b.number::text as number, '0x' || encode(b.hash, 'hex') as hash from blocks b where b.network = $1 and b.canonical order by b.number`,
    [network],
  )
  const { rows: uncles } = await pool.query<{ block: string; hash: string }>(
    `select '0x' || encode(u.block_hash, 'hex') as block, '0x' || encode(u.hash, 'hex') as hash
       from uncles u join blocks b on b.network = u.network and b.hash = u.block_hash
      where u.network = $1 and b.canonical order by u.block_hash, u.index`,
    [network],
  )
  const { rows: counts } = await pool.query<{ heights: string; uncles: string; replaced: string }>(
    `select (select count(*) from (select number from blocks where network = $1 and canonical group by number having count(*) > 1) h)::text as heights,
            (select count(*) - count(distinct (block_hash, hash)) from uncles where network = $1)::text as uncles,
            (select count(*) from blocks where network = $1 and not canonical)::text as replaced`,
    [network],
  )
  const unclesOf = new Map<string, string[]>()
  for (const u of uncles) unclesOf.set(u.block, [...(unclesOf.get(u.block) ?? []), u.hash])
  const problems: string[] = []
  if (blocks.length !== node.length) problems.push(`${blocks.length} canonical blocks indexed, the node has ${node.length}`)
  for (let i = 0; i < Math.min(blocks.length, node.length) && problems.length < 5; i++) {
    const [mine, theirs] = [blocks[i]!, node[i]!]
    if (Number(mine.number) !== theirs.number) problems.push(`height ${theirs.number} missing (found ${mine.number})`)
    else if (mine.hash !== theirs.hash) problems.push(`block ${theirs.number}: ${mine.hash} indexed, the node has ${theirs.hash}`)
    else if ((unclesOf.get(mine.hash) ?? []).join() !== theirs.uncles.join()) problems.push(`block ${theirs.number}: uncles differ`)
  }
  const count = counts[0]!
  return {
    equal: problems.length === 0,
    duplicates: Number(count.heights) + Number(count.uncles),
    blocks: blocks.length,
    replacedBlocks: Number(count.replaced),
    detail: problems.length === 0 ? `${blocks.length} blocks equal` : problems.join('; '),
  }
}
