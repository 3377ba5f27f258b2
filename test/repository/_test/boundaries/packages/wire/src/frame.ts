// Breaks wire-knows-no-jsonrpc: the byte-level wire importing the JSON-RPC core.
import { leak } from '../../jsonrpc/src/leak.js'

export const frame = (): string => leak()
