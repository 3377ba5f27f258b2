import { runCommand } from '@uncle-rpc/config'
import { untilSignal } from '@uncle-rpc/process'
import { parseSampleNodeArgs, type SampleNodeConfig, usage } from './args.js'
import { startSampleNode } from './node.js'

/**
 * `uncle-rpc sample-node [flags]`: starts the sample archive node, prints its listening line
 * and serves until SIGINT/SIGTERM. Returns the exit code (2 for bad flags).
 */
export function run(argv: string[]): Promise<number | undefined> {
  return runCommand(argv, { name: 'sample-node', usage, parse: parseSampleNodeArgs, run: serve })
}

async function serve(config: SampleNodeConfig): Promise<number> {
  const node = await startSampleNode(config, { log: (line) => process.stderr.write(`sample-node: ${line}\n`) })
  process.stdout.write(`sample-node listening on ${node.summary}\n`)
  await untilSignal()
  await node.close()
  return 0
}
