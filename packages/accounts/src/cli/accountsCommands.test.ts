import { UsageError } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import {
  createApiKey,
  findAccountByEmail,
  findKeyPolicy,
  hashSecret,
  insertAccount,
  insertUpgradeRequest,
  listApiKeys,
  updateAccountKey,
} from '@uncle-rpc/db/accounts'
import { useTestDatabase } from '@uncle-rpc/db/testing'
import { runCli } from '@uncle-rpc/testing'
import { describe, expect, test } from 'vitest'
import { accountsCommand } from './accountsCommands.js'
import { verifyPassword } from '../password/password.js'
import { hasUnsafeCharacters } from '../text/unsafeText.js'

// `uncle-rpc accounts` on a real database: the operator's side of the dashboard.

describe('uncle-rpc accounts', () => {
  let db: Db
  let out = ''
  useTestDatabase({ max: 2 }, (opened) => (db = opened.db))
  const run = (name: string, args: string[], flags = {}, password?: string) => {
    out = ''
    return accountsCommand({ db, write: (text) => (out += text), password }, name, args, flags)
  }

  test('default: the CLI keys made before accounts belong to the operator account, which cannot sign in', async () => {
    const { row } = await createApiKey(db, { plan: 'team', label: 'old cli key' })
    const operator = await findAccountByEmail(db, { email: 'operator@uncle-rpc.invalid' })
    expect(operator).toMatchObject({ passwordHash: null, plan: 'custom' })
    expect(row.accountId).toBe(operator?.id)
  })

  test('behavior: create (generated or given password), list, set-plan moves keys and grants requests, disable refuses keys', async () => {
    await run('create', ['Dev@Example.com'], { plan: 'developer' })
    const generated = out.trim().split('\n').at(-1) as string
    const account = (await findAccountByEmail(db, { email: 'dev@example.com' }))!
    expect(await verifyPassword(generated, account.passwordHash!)).toBe(true)
    await run('create', ['second@example.com'], {}, 'chosen password')
    expect(out).toBe('created account second@example.com (plan core)\n')
    await expect(run('create', ['dev@example.com'])).rejects.toThrow(UsageError)

    const { key } = await createApiKey(db, { plan: 'developer', label: 'dev key', accountId: account.id })
    await updateAccountKey(db, { accountId: account.id, keyId: (await listApiKeys(db)).at(-1)!.id, patch: { rpsCap: 3 } })
    await insertUpgradeRequest(db, { accountId: account.id, plan: 'growth', message: 'launch\nnext week' })
    await run('requests', [])
    expect(out).toMatch(/^id\temail\tplan\tasked\tgranted\tmessage\n\d+\tdev@example\.com\tgrowth\t\S+\t-\tlaunch next week\n$/)

    await run('set-plan', ['dev@example.com', 'growth'])
    expect(await findKeyPolicy(db, { keyHash: hashSecret(key) })).toMatchObject({ plan: 'growth', requestsPerSecond: 3, requestsPerDay: 20_000_000, failoverAllowed: true })
    await run('requests', [])
    expect(out.trim().split('\n')).toHaveLength(1)
    await run('requests', [], { all: true })
    expect(out).toMatch(/growth\t\S+Z\t\S+Z\tlaunch/)

    await run('list', [])
    expect(out).toMatch(/\tdev@example\.com\tgrowth\t1\t/)
    await run('disable', ['dev@example.com'])
    expect((await findKeyPolicy(db, { keyHash: hashSecret(key) }))?.revokedAt).not.toBeNull()
    await run('enable', ['dev@example.com'])
    expect((await findKeyPolicy(db, { keyHash: hashSecret(key) }))?.revokedAt).toBeNull()
    await expect(run('set-plan', ['nobody@example.com', 'team'])).rejects.toThrow('no account with email nobody@example.com')
  })

  test('behavior: --help of dashboard and accounts names every flag and command', async () => {
    const [dashboard, accounts] = await Promise.all([runCli(['dashboard', '--help']), runCli(['accounts', '--help'])])
    expect(dashboard.code).toBe(0)
    for (const flag of ['--port', '--signup open|invite', '--rpc-url', '--host', '--secure-cookies']) expect(dashboard.stdout).toContain(flag)
    expect(accounts.code).toBe(0)
    for (const command of ['create <email>', 'list', 'set-plan <email> <plan>', 'disable <email>', 'enable <email>', 'requests']) expect(accounts.stdout).toContain(command)
    expect((await runCli(['dashboard', '--signup', 'maybe'])).code).toBe(2)
  })

  test('behavior: list and requests escape what users wrote: no control character reaches the terminal', async () => {
    // Written straight to the database, as older versions of the dashboard let through.
    const evil = await insertAccount(db, { email: 'evil\u001b[31mred\u001b[0m@x.io', passwordHash: null })
    await insertUpgradeRequest(db, { accountId: evil!.id, plan: 'custom', message: '\u001b[2J\u001b[1;31m GRANTED by operator\u202e\tcolumn\nline' })
    const raw = (text: string) => [...text].some((c) => c !== '\n' && c !== '\t' && hasUnsafeCharacters(c))
    await run('list', [])
    expect(raw(out)).toBe(false)
    expect(out).toContain('evil\\u{1b}[31mred\\u{1b}[0m@x.io')
    await run('requests', [])
    expect(raw(out)).toBe(false)
    expect(out).toContain('\\u{1b}[2J\\u{1b}[1;31m GRANTED by operator\\u{202e} column line')
    expect(out.split('\n').filter((l) => l.includes('GRANTED'))[0]?.split('\t')).toHaveLength(6)
  })
})
