import { type NetworksConfig, parseNetworksConfig } from '@uncle-rpc/config'

/** Where `npm start` runs the bundled sample node, and the chain id of its synthetic chains. */
export const demoSampleNodeUrl = 'http://127.0.0.1:8546'
export const demoChainId = 1337

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
