import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { repositoryRoot } from './processes.js'

/**
 * Vitest global setup of the integration project: compiles the sources (`npm run build`, ~1 s) so
 * that the `uncle-rpc` processes the tests start run today's code, compiled as it ships.
 */
export function setup(): void {
  execFileSync(process.execPath, [join(repositoryRoot, 'scripts/build.js')], { stdio: ['ignore', 'ignore', 'inherit'] })
}
