import type { Logger, NetworkConfig } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import { registerNetwork } from '@uncle-rpc/db/chain'
import { ChainIdMismatchError } from '../errors.js'
import type { Upstream } from '../upstream/createUpstream.js'
import { probeChainId } from './probe.js'

export type WaitForNetworkDeps = {
  db: Db
  logger: Logger
  /** The network's probe; undefined without an rpcUrl (era1 files only). */
  probe: Upstream | undefined
  sleep(ms: number): Promise<void>
  stopped(): boolean
}

/**
 * The first step of a network: until its node answers with the configured chain id (`checked`:
 * the caller has already asked once) and the network is registered in the database, it waits and
 * asks again, backoff 1 s doubling to 30 s. Throws ChainIdMismatchError when the node or the
 * database says another chain; returns early when stopped.
 */
export async function waitForNetwork(deps: WaitForNetworkDeps, config: NetworkConfig, initial: 'checked' | 'unchecked'): Promise<void> {
  for (let failures = 0; !deps.stopped(); ) {
    let problem: string | undefined
    if (initial === 'unchecked' || failures > 0) {
      const outcome = await probeChainId(config, deps.probe)
      if (outcome !== 'ok') problem = outcome.unreachable
    }
    if (problem === undefined) {
      try {
        const registered = await registerNetwork(deps.db, { name: config.name, chainId: BigInt(config.chainId) })
        if (registered.mismatch) throw new ChainIdMismatchError(config.name, config.chainId, registered.mismatch.stored, 'the database')
        if (failures > 0) deps.logger.info({ msg: 'network available; indexing', after_attempts: failures + 1 })
        return
      } catch (error) {
        if (error instanceof ChainIdMismatchError) throw error
        problem = `database: ${error instanceof Error ? error.message : String(error)}`
      }
    }
    failures++
    const delayMs = Math.min(30_000, 1_000 * 2 ** Math.min(failures - 1, 5))
    deps.logger.warn({ msg: 'network unavailable; will retry', error: problem, retry_in_ms: delayMs })
    await deps.sleep(delayMs)
  }
}
