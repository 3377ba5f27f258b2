import { parseSampleNodeArgs, UsageError, usage } from './args.js'
import { startSampleNode } from './node.js'

/**
 * `uncle-rpc sample-node [flags]`: starts the sample archive node, prints its listening line
 * and serves until SIGINT/SIGTERM. Returns the exit code (2 for bad flags).
 */
export async function run(argv: string[]): Promise<number | undefined> {
  let config: ReturnType<typeof parseSampleNodeArgs>
  try {
    config = parseSampleNodeArgs(argv)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`sample-node: ${error.shortMessage}\n(uncle-rpc sample-node --help for the flags)\n`)
    return 2
  }
  if (config === 'help') {
    process.stdout.write(usage)
    return 0
  }
  const node = await startSampleNode(config, { log: (line) => process.stderr.write(`sample-node: ${line}\n`) })
  process.stdout.write(`sample-node listening on ${node.summary}\n`)
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      resolve()
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
  await node.close()
  return 0
}
