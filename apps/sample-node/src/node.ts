import { inspect } from 'node:util'
import { toRpcHeaderFields } from '@uncle-rpc/chain'
import type { SampleNodeConfig } from './args.js'
import { createFaults, hasFaults } from './faults.js'
import { createMethods } from './methods.js'
import { createSampleNodeServer } from './server.js'
import { attachWebSocket } from './webSocket.js'
import type { ChainSource } from './sources/chainSource.js'
import { createEra1Source } from './sources/era1Source.js'
import { type LiveChainEvent, startLiveChain } from './sources/liveChain.js'
import { createSyntheticChain } from './sources/synthetic/syntheticChain.js'

export type SampleNode = {
  /** `http://host:port` (WebSocket: the same with ws://) */
  url: string
  chain: ChainSource
  /** The startup line's text after "listening on": `http://… (chain: …, chainId N)`. */
  summary: string
  close(): Promise<void>
}

export type StartSampleNodeHooks = {
  /** Progress and notable events, one line each (the CLI writes them to stderr). */
  log?: ((line: string) => void) | undefined
  onLiveBlock?: ((event: LiveChainEvent) => void) | undefined
}

/** Builds the chain source from the config, verifies or generates it, and starts serving. */
export async function startSampleNode(config: SampleNodeConfig, hooks: StartSampleNodeHooks = {}): Promise<SampleNode> {
  const log = hooks.log ?? (() => {})
  const { source } = config
  let chain: ChainSource
  let live: { stop(): void } | undefined
  // Note: the live chain announces through the WebSocket, which needs the server made below.
  const announce = { head: () => {} }
  if (source.kind === 'era1') {
    chain = await createEra1Source({
      paths: source.paths,
      chainId: source.chainId,
      onFile: (path, s) => log(`verified ${path}: ${s.blocks} blocks, ${s.uncles} uncles, accumulator ${s.accumulatorRoot}`),
    })
  } else {
    const synthetic = await createSyntheticChain({
      seed: source.seed,
      blocks: source.blocks,
      londonAt: source.londonAt,
      chainId: source.chainId,
      onProgress: (done, total) => log(`generated ${done} of ${total} blocks`),
    })
    chain = synthetic
    if (config.live)
      live = startLiveChain({
        chain: synthetic,
        seed: source.seed,
        ...config.live,
        onBlock: (event) => {
          announce.head()
          hooks.onLiveBlock?.(event)
        },
        onStop: (head) => log(`live chain stopped at head ${head} after ${config.live?.stopAfter} new blocks`),
      })
  }
  const methods = createMethods({ chain, tamperBlock: config.tamperBlock, tamperUncles: config.tamperUncles, swapUncles: config.swapUncles })
  const server = createSampleNodeServer({
    methods,
    maxBatchSize: config.maxBatchSize,
    faults: hasFaults(config.faults) ? createFaults(config.faults) : undefined,
    // Note: inspect() gives the stack, the own fields and the cause chain.
    onInternalError: (error, correlationId) => log(`internal error ${correlationId}: ${inspect(error)}`),
  })
  const ws = attachWebSocket(server.server, {
    methods,
    maxBatchSize: config.maxBatchSize,
    head: () => {
      const block = chain.blockByNumber(chain.head())
      return block === undefined ? null : toRpcHeaderFields(block.header)
    },
    onInternalError: (error, correlationId) => log(`internal error ${correlationId} (ws): ${inspect(error)}`),
  })
  announce.head = () => ws.announceHead()
  let address: Awaited<ReturnType<typeof server.listen>>
  try {
    address = await server.listen(config.port, config.host)
  } catch (error) {
    live?.stop()
    ws.close()
    throw error
  }
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const url = `http://${host}:${address.port}`
  return {
    url,
    chain,
    summary: `${url} (chain: ${chain.description}, chainId ${chain.chainId})`,
    async close() {
      live?.stop()
      ws.close()
      await server.close()
    },
  }
}
