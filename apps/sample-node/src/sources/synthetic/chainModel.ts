import { createRng, type Rng } from '../../rng.js'

// What a synthetic chain looks like: mainnet-shaped trends for difficulty, gas limit, block
// times and transaction counts, a pool of miners, and a few bloom patterns. Pure functions of
// the seed and the block number, so every segment can be regenerated on demand.

/** Blocks per generated segment (the unit of regeneration and caching). */
export const segmentSize = 1024

/** Canonical ancestors a block needs: its parent, and 6 more for the uncle rule (geth's 7). */
export const ancestorWindow = 7

/** Timestamp of every synthetic genesis (2015-07-30, around mainnet's). */
export const genesisTimestamp = 1_438_269_960

/** Share of blocks that include uncles (mainnet's PoW era: about 7–9%). */
export const uncleBlockRate = 0.08

/** Base fee of the first London block (EIP-1559 INITIAL_BASE_FEE). */
export const initialBaseFee = 1_000_000_000n

/** keccak256(RLP([])): `sha3Uncles` of a block without uncles. */
export const emptyUnclesHash = hexBytes('1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347')

/** Root of an empty trie: transactions/receipts root of a block without transactions. */
export const emptyTrieRoot = hexBytes('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421')

export const zeroHash = new Uint8Array(32)
export const zeroAddress = new Uint8Array(20)
export const zeroBloom = new Uint8Array(256)

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex, 'hex'))
}

/** A mining pool: its coinbase and the extraData its blocks carry. */
export type Miner = { address: Uint8Array; extraData: Uint8Array }

const poolLabels = [
  'ethermine-eu1',
  'Geth/v1.0.1/linux/go1.4.2',
  'nanopool.org',
  'f2pool_2',
  'sparkpool-eth-cn-hz2',
  'Hiveon Pool',
  'DwarfPool1',
  'Geth/v1.4.18-stable/linux/go1.7',
  'Minerall Pool',
  'HuoBi',
  'ezil.me',
  'flexpool.io',
  'Bitfly',
  'Parity-Ethereum/v2.7.2',
  'pool.btc.com',
  'MiningPoolHub',
  'antpool.com',
  '2miners.com',
  'Geth/v1.9.25-stable/linux/go1.15',
  'bw.com',
]

/** The miners of a chain (20, addresses from the seed) and a Zipf-weighted pick among them. */
export function createMinerPool(seed: number): { miners: Miner[]; pick(rng: Rng): Miner } {
  const rng = createRng(seed, 0x6d696e65)
  const miners = poolLabels.map((label) => {
    const address = new Uint8Array(20)
    rng.fill(address)
    return { address, extraData: new TextEncoder().encode(label) }
  })
  // Note: the top pools find most blocks, as on mainnet (weights 1, 1/2, 1/3, …).
  const cumulative: number[] = []
  let total = 0
  for (let i = 0; i < miners.length; i++) {
    total += 1 / (i + 1)
    cumulative.push(total)
  }
  return {
    miners,
    pick(rng) {
      const x = rng.float() * total
      let i = 0
      while (i < miners.length - 1 && (cumulative[i] as number) <= x) i++
      return miners[i] as Miner
    },
  }
}

/** Bloom patterns by density class (0: 1–9 txs … 3: 300+); 16 patterns per class. */
export function createBloomPool(seed: number): Uint8Array[][] {
  const rng = createRng(seed, 0x626c6f6f)
  return [24, 120, 480, 1200].map((bits) =>
    Array.from({ length: 16 }, () => {
      const bloom = new Uint8Array(256)
      for (let i = 0; i < bits; i++) {
        const bit = rng.int(2048)
        bloom[bit >>> 3] = (bloom[bit >>> 3] as number) | (1 << (bit & 7))
      }
      return bloom
    }),
  )
}

/** The bloom class of a block with `txCount` transactions. */
export function bloomClass(txCount: number): number {
  return txCount < 10 ? 0 : txCount < 80 ? 1 : txCount < 300 ? 2 : 3
}

// Mainnet's gas limit, roughly: 5000 at genesis, 3.14M by block 50k, then the miners' votes.
const gasLimitPoints: readonly (readonly [number, number])[] = [
  [0, 5_000],
  [50_000, 3_141_592],
  [2_600_000, 4_712_388],
  [4_500_000, 6_700_000],
  [5_500_000, 8_000_000],
  [8_500_000, 10_000_000],
  [10_700_000, 12_500_000],
  [12_300_000, 15_000_000],
]

/** The gas limit miners aim for at `number` (before London's doubling). */
export function gasLimitTrend(number: number): number {
  for (let i = 1; i < gasLimitPoints.length; i++) {
    const [n1, g1] = gasLimitPoints[i] as readonly [number, number]
    if (number < n1) {
      const [n0, g0] = gasLimitPoints[i - 1] as readonly [number, number]
      return Math.round(g0 + ((g1 - g0) * (number - n0)) / (n1 - n0))
    }
  }
  return 15_000_000
}

/** Difficulty trend: 2^34 at genesis, ~5e13 at 1M, ~1.2e16 at 15.5M (mainnet's order of magnitude). */
export function difficultyTrend(number: number): bigint {
  const n = BigInt(number)
  return 0x4_0000_0000n + 50n * n * n
}

/** How many transactions a pre-London block may carry: none before mainnet's first (46,147). */
export function transactionCap(number: number, gasLimit: number): number {
  if (number < 46_147) return 0
  return Math.min(Math.floor(gasLimit / 21_000), 1 + Math.floor((number - 46_147) / 15_000), 300)
}

/** Seconds between blocks: roughly exponential, mean ~13.5 s, at least 1 s. */
export function blockInterval(rng: Rng): number {
  return 1 + Math.min(120, Math.floor(-Math.log(1 - rng.float()) * 12.5))
}

/** EIP-1559: the base fee of a block whose parent had these values. */
export function nextBaseFee(parent: { gasLimit: number; gasUsed: number; baseFeePerGas: bigint }): bigint {
  const target = BigInt(Math.floor(parent.gasLimit / 2))
  const used = BigInt(parent.gasUsed)
  const fee = parent.baseFeePerGas
  if (target === 0n || used === target) return fee
  if (used > target) {
    const delta = (fee * (used - target)) / target / 8n
    return fee + (delta > 1n ? delta : 1n)
  }
  return fee - (fee * (target - used)) / target / 8n
}
