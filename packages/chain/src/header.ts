/** A `0x`-prefixed hex string. Domain values are always lowercase. */
export type Hex = `0x${string}`

/**
 * A block header in domain form: quantities as bigint, byte strings as lowercase hex of
 * their exact length. Field order here is the RLP order of the Ethereum header.
 * The optional fields arrived with later forks and appear in RLP only when present,
 * each requiring all the earlier ones (London → Shanghai → Cancun → Prague).
 */
export type BlockHeader = {
  parentHash: Hex
  sha3Uncles: Hex
  miner: Hex
  stateRoot: Hex
  transactionsRoot: Hex
  receiptsRoot: Hex
  logsBloom: Hex
  difficulty: bigint
  number: bigint
  gasLimit: bigint
  gasUsed: bigint
  timestamp: bigint
  extraData: Hex
  mixHash: Hex
  nonce: Hex
  /** London (EIP-1559) */
  baseFeePerGas?: bigint
  /** Shanghai (EIP-4895) */
  withdrawalsRoot?: Hex
  /** Cancun (EIP-4844) */
  blobGasUsed?: bigint
  excessBlobGas?: bigint
  /** Cancun (EIP-4788) */
  parentBeaconBlockRoot?: Hex
  /** Prague (EIP-7685) */
  requestsHash?: Hex
}

/** A header together with its (verified or claimed) hash. */
export type HashedHeader = BlockHeader & { hash: Hex }

/** The kinds of header fields, which decide their wire and RLP encodings. */
export type FieldKind = 'quantity' | { bytes: number } | 'data'

/** Every header field in RLP order, with its kind. `data` is a variable-length byte string. */
export const headerFields = [
  ['parentHash', { bytes: 32 }],
  ['sha3Uncles', { bytes: 32 }],
  ['miner', { bytes: 20 }],
  ['stateRoot', { bytes: 32 }],
  ['transactionsRoot', { bytes: 32 }],
  ['receiptsRoot', { bytes: 32 }],
  ['logsBloom', { bytes: 256 }],
  ['difficulty', 'quantity'],
  ['number', 'quantity'],
  ['gasLimit', 'quantity'],
  ['gasUsed', 'quantity'],
  ['timestamp', 'quantity'],
  ['extraData', 'data'],
  ['mixHash', { bytes: 32 }],
  ['nonce', { bytes: 8 }],
  ['baseFeePerGas', 'quantity'],
  ['withdrawalsRoot', { bytes: 32 }],
  ['blobGasUsed', 'quantity'],
  ['excessBlobGas', 'quantity'],
  ['parentBeaconBlockRoot', { bytes: 32 }],
  ['requestsHash', { bytes: 32 }],
] as const satisfies readonly (readonly [keyof BlockHeader, FieldKind])[]

/** Number of fields every header has (Frontier); the rest are optional fork additions. */
export const requiredFieldCount = 15

export type HeaderFieldName = (typeof headerFields)[number][0]
