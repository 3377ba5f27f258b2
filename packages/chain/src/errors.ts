import { BaseError } from '@uncle-rpc/errors'

/** A header or block object from a node (or a file) that does not have the expected shape. */
export class InvalidHeaderError extends BaseError {
  readonly field: string
  constructor({ field, value, reason }: { field: string; value: unknown; reason: string }) {
    super(`Invalid header field "${field}": ${reason}`, {
      details: `got ${describeValue(value)}`,
      name: 'InvalidHeaderError',
    })
    this.field = field
  }
}

/** A JSON-RPC quantity (a node's chain id, block number, total difficulty) that is not `0x` hex without leading zeros. */
export class InvalidQuantityError extends BaseError {
  constructor(what: string, value: unknown) {
    super(`Invalid ${what}: expected a hex quantity`, { details: `got ${describeValue(value)}`, name: 'InvalidQuantityError' })
  }
}

// Note: JSON.stringify throws on bigint (a viem-formatted block has bigint fields), and an error
// constructor must never throw; bytes and bigints are shown the way they would be written.
function describeValue(value: unknown): string {
  const text =
    typeof value === 'bigint'
      ? `${value}n`
      : value instanceof Uint8Array
        ? `Uint8Array(${value.length})`
        : (JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) ?? String(value))
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}
