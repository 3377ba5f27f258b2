import { existsSync } from 'node:fs'
import { delimiter, join } from 'node:path'

// System tools some tests drive (promtool, haproxy), found on PATH or in the sbin directories
// Debian installs daemons to. Under CI a missing tool is a failure (.ci/run installs them);
// elsewhere the test is skipped with a line saying what to install.

/** True when running under CI, where a missing tool is a failure rather than a skip. */
export const isCi = Boolean(process.env.CI)

/** Absolute path of `command`, or undefined when it is not installed. */
export function findTool(command: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/local/sbin', '/usr/sbin', '/sbin']
  // Note: only absolute entries; an empty or relative PATH entry would resolve against the cwd.
  return dirs.map((dir) => join(dir, command)).find((path) => path.startsWith('/') && existsSync(path))
}

/**
 * `findTool(command)`, for a test that needs it: under CI a missing tool throws; elsewhere it
 * prints what to install (`apt-get install -y <debianPackage>`) and returns undefined, so the caller skips.
 */
export function requireTool(command: string, debianPackage: string): string | undefined {
  const path = findTool(command)
  if (path !== undefined) return path
  const message = `${command} not found: install it with \`apt-get install -y ${debianPackage}\``
  if (isCi) throw new Error(message)
  process.stderr.write(`skipping: ${message}\n`)
  return undefined
}
