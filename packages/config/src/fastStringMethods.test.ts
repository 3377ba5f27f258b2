import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'

// V8's own view of String.prototype (fast or dictionary properties) in a fresh process, after it loads `module`.
function stringPrototypeFastAfter(module: string): boolean {
  const script = `await import(${JSON.stringify(module)}); process.stdout.write(String(new Function('return %HasFastProperties(String.prototype)')()))`
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('.', import.meta.url)),
    encoding: 'utf8',
  })
  return out === 'true'
}

describe('fastStringMethods', () => {
  test('behavior: ioredis alone leaves String.prototype with dictionary properties; loading our Redis client module makes them fast again', () => {
    expect(stringPrototypeFastAfter('ioredis')).toBe(false)
    expect(stringPrototypeFastAfter('@uncle-rpc/config')).toBe(true)
    // The processes that load ioredis through it: whatever else their modules load, after it too.
    expect(stringPrototypeFastAfter('@uncle-rpc/rpc')).toBe(true)
    expect(stringPrototypeFastAfter('@uncle-rpc/indexer')).toBe(true)
  })
})
