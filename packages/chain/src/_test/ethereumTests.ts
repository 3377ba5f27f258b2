import { readFixtureJson } from '@uncle-rpc/testing'

// Test-side adapter for ethereum/tests BlockchainTests JSON (not product code): their headers use
// other field names and quantities with leading zeros ("0x020000", "0x00").

/** The ethereum/tests files with uncles, as they sit under fixtures/. */
export const ethereumTestsFiles = [
  'ethereum-tests/bcUncleTest_oneUncle.json',
  'ethereum-tests/bcUncleTest_uncleHeaderAtBlock2.json',
]

export type EthereumTestsHeader = Record<string, string>
export type EthereumTestsTransaction = Record<string, string>
export type EthereumTestsBlock = {
  blockHeader: EthereumTestsHeader
  uncleHeaders: EthereumTestsHeader[]
  transactions: EthereumTestsTransaction[]
  rlp: `0x${string}`
}
export type EthereumTestsChain = {
  file: string
  test: string
  network: string
  genesisBlockHeader: EthereumTestsHeader
  genesisRLP: `0x${string}`
  blocks: EthereumTestsBlock[]
}

const renamed: Record<string, string> = {
  bloom: 'logsBloom',
  coinbase: 'miner',
  uncleHash: 'sha3Uncles',
  transactionsTrie: 'transactionsRoot',
  receiptTrie: 'receiptsRoot',
}
const quantities = new Set(['difficulty', 'number', 'gasLimit', 'gasUsed', 'timestamp', 'baseFeePerGas'])

/** A quantity without leading zeros, as JSON-RPC writes it ("0x020000" → "0x20000", "0x00" → "0x0"). */
function canonicalQuantity(value: string): string {
  return `0x${value.slice(2).replace(/^0+/, '') || '0'}`
}

/** An ethereum/tests header in the JSON-RPC shape `headerFromRpc` reads. */
export function ethereumTestsHeaderToRpc(header: EthereumTestsHeader): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(header)) {
    const name = renamed[key] ?? key
    out[name] = quantities.has(name) ? canonicalQuantity(value) : value
  }
  return out
}

/** Every test chain (Istanbul/Berlin/London variants) in the ethereum/tests files. */
export function readEthereumTestsChains(): EthereumTestsChain[] {
  return ethereumTestsFiles.flatMap((file) =>
    Object.entries(readFixtureJson<Record<string, Omit<EthereumTestsChain, 'file' | 'test'>>>(file)).map(([test, chain]) => ({
      ...chain,
      file,
      test,
    })),
  )
}
