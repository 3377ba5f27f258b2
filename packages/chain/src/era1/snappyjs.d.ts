// Types for the untyped `snappyjs` package (raw snappy block format). Only what we use.
declare module 'snappyjs' {
  /** Decompresses one snappy block; throws a plain Error on a malformed block or one larger than `maxLength`. */
  export function uncompress(compressed: Uint8Array, maxLength?: number): Uint8Array
  /** Compresses bytes into one snappy block. */
  export function compress(uncompressed: Uint8Array): Uint8Array
}
