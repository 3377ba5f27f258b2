import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { writeSyntheticEra1 } from '@uncle-rpc/sample-node'

/**
 * Writes the sample node's synthetic chain (`--synthetic blocks --seed seed`) as era1 files in
 * `dir`; returns their names by epoch.
 */
export async function writeSyntheticEra1Dir({ dir, blocks, seed, network = 'synthetic' }: { dir: string; blocks: number; seed: number; network?: string }): Promise<Map<number, string>> {
  mkdirSync(dir, { recursive: true })
  const names = new Map<number, string>()
  await writeSyntheticEra1({
    seed,
    blocks,
    network,
    onFile: (file) => {
      writeFileSync(join(dir, file.name), file.bytes)
      names.set(file.epoch, file.name)
    },
  })
  return names
}
