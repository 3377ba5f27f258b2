import { readdirSync, statSync } from 'node:fs'
import { basename, join, posix } from 'node:path'

// What the Dockerfile's final stage (the image that ships) holds, read without a Docker engine:
// its COPY instructions, and the files they copy, read from this checkout once built (the build
// stage is `npm ci`, which builds, on a copy of it).

/** One COPY of the final stage: its sources (in the build context, or in stage `from`) and destination. */
export type DockerCopy = { from: string | undefined; sources: string[]; destination: string }

/** The final stage's instructions, continuation lines joined, comments left out. */
export function finalStage(dockerfile: string): string[] {
  const lines = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
  const last = lines.findLastIndex((line) => /^FROM\s/i.test(line))
  return lines.slice(last)
}

/** The COPY instructions of the final stage. */
function finalStageCopies(dockerfile: string): DockerCopy[] {
  return finalStage(dockerfile)
    .filter((line) => /^COPY\s/i.test(line))
    .map((line) => {
      const words = line.split(/\s+/).slice(1)
      const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length)
      const paths = words.filter((w) => !w.startsWith('--'))
      return { from, sources: paths.slice(0, -1), destination: paths.at(-1)! }
    })
}

/** Paths of the files under `dir` (relative to it), without node_modules and .git (the .dockerignore). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => !file.split('/').some((part) => part === 'node_modules' || part === '.git'))
    .filter((file) => statSync(join(dir, file)).isFile())
}

/**
 * The files the final stage copies, as [path in the image relative to the workdir /app, path in
 * `root`]; `root` stands for the build context and for the build stage's /app alike.
 */
export function finalStageFiles(dockerfile: string, root: string): [string, string][] {
  const files: [string, string][] = []
  for (const copy of finalStageCopies(dockerfile)) {
    for (const source of copy.sources) {
      const relative = copy.from === undefined ? source : posix.relative('/app', source)
      const from = join(root, relative)
      const destination = copy.destination === '.' || copy.destination === './' ? '' : copy.destination
      if (statSync(from).isDirectory()) {
        for (const file of filesUnder(from)) files.push([posix.join(destination, file), join(from, file)])
      } else {
        files.push([destination.endsWith('/') || destination === '' ? posix.join(destination, basename(relative)) : destination, from])
      }
    }
  }
  return files
}
