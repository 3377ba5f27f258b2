import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isCi, repositoryRoot } from '@uncle-rpc/testing'
import { type BrowserContext, chromium } from 'playwright-core'

// Test-only: Debian's chromium driven by playwright-core (no browser download), and the folder
// screenshots go to (git-ignored).

const chromiumPath = '/usr/bin/chromium'
export const screenshotsDir = join(repositoryRoot, 'apps/dashboard/screenshots')

/** Whether chromium is installed; under CI its absence is a failure (.ci/run installs it). */
export function haveChromium(): boolean {
  if (existsSync(chromiumPath)) return true
  const message = `${chromiumPath} missing: apt-get install -y chromium`
  if (isCi) throw new Error(message)
  process.stderr.write(`skipping browser tests: ${message}\n`)
  return false
}

/** Starts headless chromium with a fresh profile (--user-data-dir); `close` also removes the profile. */
export async function launchChromium(viewport: { width: number; height: number }): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'uncle-rpc-chromium-'))
  mkdirSync(screenshotsDir, { recursive: true })
  // Note: playwright passes the profile as --user-data-dir itself (it refuses the flag in args).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  })
  return {
    context,
    close: async () => {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}
