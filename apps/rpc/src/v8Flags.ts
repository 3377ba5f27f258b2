import { setFlagsFromString } from 'node:v8'

/**
 * Turns off V8's allocation-site pretenuring in this process, before it serves. V8 allocates the
 * objects of an allocation site straight into the old generation once enough of them survived a
 * scavenge. Under cold load (answers waiting for Postgres) it did so for per-request objects; each
 * such object, dead in the old generation until the next mark-compact, still held young ones, so
 * every scavenge kept about 8 MB alive (6-11 ms pauses), which made more sites pretenured. Measured
 * on the server, cache off, wrk -c64, five pairs of rounds alternating with the code before: 26.4-34.3 against
 * 31.4-39.3 µs of CPU per answer (lower in each pair), p99 5.7-8.1 against 15.3-21.9 ms; the
 * cached rows did not move beyond the noise (docs/benchmarks/2026-11-27-cold-path-garbage.md).
 * Note: set at run time, as `node --no-allocation-site-pretenuring` would (NODE_OPTIONS does not
 * accept it); measured to take effect so, in-process and on the server.
 */
export function applyV8Flags(): void {
  setFlagsFromString('--no-allocation-site-pretenuring')
}
