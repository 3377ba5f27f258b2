import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { headerRlp, headerToRlpFields, type Hex } from '@uncle-rpc/chain'
import { createSyntheticChain } from '@uncle-rpc/sample-node'
import { hexToBytes, toRlp } from 'viem'
import { type Era1BlockInput, writeEra1 } from '../../../../packages/chain/src/era1/_test/writeEra1.js'

// Test- and bench-side: era1 files of the sample node's synthetic chain (the same blocks the
// node serves for the same seed), named `<network>-<epoch>-<root8>.era1`. Bodies carry the uncles
// and no transactions; receipts are empty lists.

const epochSize = 8192

export type WriteSyntheticEra1Parameters = {
  dir: string
  blocks: number
  seed: number
  network?: string
  /** Only these epochs are written (default: all). */
  epochs?: readonly number[]
}

/** Writes the synthetic chain's blocks 0 … blocks−1 as era1 files; returns their names by epoch. */
export async function writeSyntheticEra1(params: WriteSyntheticEra1Parameters): Promise<Map<number, string>> {
  const { dir, blocks, seed, network = 'synthetic' } = params
  mkdirSync(dir, { recursive: true })
  const chain = await createSyntheticChain({ seed, blocks, chainId: 1337n })
  const names = new Map<number, string>()
  for (let epoch = 0; epoch * epochSize < blocks; epoch++) {
    if (params.epochs && !params.epochs.includes(epoch)) continue
    const inputs: Era1BlockInput[] = []
    const last = Math.min(blocks, (epoch + 1) * epochSize) - 1
    for (let n = epoch * epochSize; n <= last; n++) {
      const block = chain.blockByNumber(BigInt(n))
      if (!block) throw new Error(`synthetic block ${n} missing`)
      inputs.push({
        headerRlp: hexToBytes(headerRlp(block.header)),
        bodyRlp: hexToBytes(toRlp([[], block.uncles.map(headerToRlpFields)])),
        receiptsRlp: Uint8Array.of(0xc0),
        totalDifficulty: block.totalDifficulty,
        hash: block.header.hash,
      })
    }
    const bytes = writeEra1(inputs, { startNumber: BigInt(epoch * epochSize) })
    const root = rootOf(bytes)
    const name = `${network}-${String(epoch).padStart(5, '0')}-${root.slice(2, 10)}.era1`
    writeFileSync(join(dir, name), bytes)
    names.set(epoch, name)
  }
  return names
}

/** The Accumulator record's root of an era1 file written by writeEra1 (just before the BlockIndex). */
export function rootOf(bytes: Uint8Array): Hex {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const count = Number(view.getBigUint64(bytes.length - 8, true))
  const indexStart = bytes.length - 8 - (16 + 8 * count)
  const rootStart = indexStart - 32
  return `0x${Buffer.from(bytes.subarray(rootStart, indexStart)).toString('hex')}`
}
