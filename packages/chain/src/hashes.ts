import { createHash } from 'node:crypto'
import { createKeccak, createSHA256, type IHasher } from 'hash-wasm'
import { keccak_256 as nobleKeccak256 } from '@noble/hashes/sha3'

// Every keccak256 and sha256 in packages/chain goes through here. hash-wasm's WebAssembly keccak
// hashes a 540-byte header ~5× faster than the `keccak` native addon and ~20× faster than viem's
// pure-JS one (bench/keccak.ts), and installs with no build step; its sha256 beats node:crypto's
// per-call cost on the accumulator's 64-byte inputs. WebAssembly loads asynchronously, so until
// it is ready (a few ms after import) @noble/hashes' keccak and node:crypto answer: same digests, only
// slower. Hot paths `await hashesReady()` once at startup. (Not viem's keccak: importing viem
// costs ~0.3 s of module loading, ~1 s under tsx, and a verification thread imports only this.)

let keccak: IHasher | undefined
let sha256: IHasher | undefined
const ready: Promise<void> = Promise.all([createKeccak(256), createSHA256()]).then(([k, s]) => {
  keccak = k
  sha256 = s
})

/**
 * Resolves once the WebAssembly hashers are loaded. Optional: before that, {@link keccak256Bytes}
 * and {@link sha256Pair} give the same digests through JS/node:crypto. Hot paths await it once.
 */
export function hashesReady(): Promise<void> {
  return ready
}

/** keccak256 of bytes, as a fresh 32-byte array. Synchronous. */
export function keccak256Bytes(data: Uint8Array): Uint8Array {
  if (keccak === undefined) return nobleKeccak256(data)
  return keccak.init().update(data).digest('binary')
}

/** sha256(a ‖ b), as a fresh 32-byte array (SSZ merkleization's node hash). Synchronous. */
export function sha256Pair(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (sha256 === undefined) return createHash('sha256').update(a).update(b).digest()
  return sha256.init().update(a).update(b).digest('binary')
}
