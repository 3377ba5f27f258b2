// A hand-built header with every fork field up to Prague, in JSON-RPC form (test data, not a real block).

/** Every header field through Prague (withdrawalsRoot, blob gas, beacon root, requestsHash). */
export const postMergeHeaderJson = {
  baseFeePerGas: '0x7',
  blobGasUsed: '0x20000',
  difficulty: '0x0',
  excessBlobGas: '0x0',
  extraData: '0x',
  gasLimit: '0x1c9c380',
  gasUsed: '0x0',
  hash: `0x${'ab'.repeat(32)}`,
  logsBloom: `0x${'00'.repeat(256)}`,
  miner: `0x${'11'.repeat(20)}`,
  mixHash: `0x${'22'.repeat(32)}`,
  nonce: '0x0000000000000000',
  number: '0x1',
  parentBeaconBlockRoot: `0x${'33'.repeat(32)}`,
  parentHash: `0x${'44'.repeat(32)}`,
  receiptsRoot: `0x${'55'.repeat(32)}`,
  requestsHash: `0x${'66'.repeat(32)}`,
  sha3Uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
  stateRoot: `0x${'77'.repeat(32)}`,
  timestamp: '0x6553f100',
  transactionsRoot: `0x${'88'.repeat(32)}`,
  withdrawalsRoot: `0x${'99'.repeat(32)}`,
} as const
