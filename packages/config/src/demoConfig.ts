import type { Env } from './env.js'
import { loadNetworksConfig, type NetworksConfig, parseNetworksConfig } from './networksConfig.js'

/** Where `npm start` runs the bundled sample node, and the chain id of its synthetic chains. */
export const demoSampleNodeUrl = 'http://127.0.0.1:8546'
const demoChainId = 1337

/**
 * The config used when none is given: one `mainnet`-shaped network served by the bundled
 * sample node on a synthetic chain, so a fresh clone runs offline.
 */
export function demoNetworksConfig(rpcUrl = demoSampleNodeUrl): NetworksConfig {
  return parseNetworksConfig(
    { networks: [{ name: 'mainnet', chainId: demoChainId, rpcUrl, fromBlock: 0, confirmations: 0 }] },
    'the demo config',
  )
}

/** The networks config named by a `--config` flag or $UNCLE_RPC_CONFIG, else the demo config. */
export function resolveNetworksConfig(env: Env, configFlag: string | undefined): NetworksConfig {
  const path = configFlag ?? env.UNCLE_RPC_CONFIG
  return path === undefined ? demoNetworksConfig() : loadNetworksConfig(path)
}
