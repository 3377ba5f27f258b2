import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Db } from '@uncle-rpc/db'
import { createApiKey, findApiKey, hashSecret } from '@uncle-rpc/db/accounts'

// `npm start`'s demo key, kept across starts: a key is stored only as its sha256, so the key
// itself is kept in a file (mode 600) beside the checkout, one per database. A new one is made
// only when that file is missing or its key is revoked or gone (the database dropped).

export const demoKeyLabel = 'npm start demo'

/** The file that keeps the demo key of the database at `databaseUrl` (named by its host, port and name, never its password). */
export function demoKeyPath(stateDir: string, databaseUrl: string): string {
  const u = new URL(databaseUrl)
  const id = createHash('sha256').update(`${u.hostname}:${u.port || '5432'}${u.pathname}`).digest('hex').slice(0, 16)
  return join(stateDir, `demo-key-${id}`)
}

function readKey(path: string): string | undefined {
  try {
    const key = readFileSync(path, 'utf8').trim()
    return /^[0-9a-f]{32}$/.test(key) ? key : undefined
  } catch {
    // Note: no file yet (a first start): a key is made below.
    return undefined
  }
}

/** The live demo key kept at `path`, or a new growth-plan key stored there. */
export async function demoKey(db: Db, path: string): Promise<{ key: string; created: boolean }> {
  const kept = readKey(path)
  if (kept !== undefined) {
    const row = await findApiKey(db, { keyHash: hashSecret(kept) })
    if (row !== null && row.revokedAt === null) return { key: kept, created: false }
  }
  const { key } = await createApiKey(db, { plan: 'growth', label: demoKeyLabel })
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 })
  writeFileSync(path, `${key}\n`, { mode: 0o600 })
  return { key, created: true }
}
