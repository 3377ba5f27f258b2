import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { benchRoot } from './rpcLoad.js'

// anvil (Foundry's node, Rust): the peer the RPC benches measure against.

/** Polls anvil until it answers; returns its genesis block hash. */
export async function waitForGenesis(url: string): Promise<string> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['0x0', false] })
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      return ((await res.json()) as { result: { hash: string } }).result.hash
    } catch {
      // Note: not listening yet; try again shortly.
      await new Promise((resolveWait) => setTimeout(resolveWait, 100))
    }
  }
  throw new Error(`anvil did not start at ${url}`)
}

const anvilVersion = '1.7.1'

/**
 * anvil's binary, from its npm platform package (not a project dependency: the lockfile would
 * list every platform's package). The first run installs it into `.cache/anvil` (ignored by git);
 * undefined when that fails (no registry access): the anvil row is then left out.
 */
export function anvilBinary(log: (line: string) => void): string | undefined {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch
  const name = `@foundry-rs/anvil-${process.platform}-${arch}`
  const prefix = join(benchRoot, '.cache', 'anvil')
  const binary = join(prefix, 'node_modules', name, 'bin', 'anvil')
  if (!existsSync(binary)) {
    log(`installing ${name}@${anvilVersion} into ${prefix}`)
    try {
      execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', `${name}@${anvilVersion}`], { stdio: 'inherit' })
    } catch (error) {
      log(`anvil not installed (${(error as Error).message.split('\n')[0]}); its row is left out (--skip-anvil skips it)`)
      return undefined
    }
  }
  return binary
}
