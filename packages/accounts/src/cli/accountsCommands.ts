import { randomBytes } from 'node:crypto'
import { UsageError } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import {
  apiKeyPlans,
  insertAccount,
  isApiKeyPlan,
  listAccounts,
  listUpgradeRequests,
  normalizeEmail,
  operatorEmail,
  setAccountDisabled,
  setAccountPlan,
} from '@uncle-rpc/db/accounts'
import { emailPattern } from '../email.js'
import { hashPassword } from '../password/password.js'
import { passwordProblem } from '../password/passwordRule.js'
import { escapeForTerminal } from '../text/unsafeText.js'

/** The flags of `uncle-rpc accounts` as parseArgs gives them. */
export type AccountsFlags = { plan?: string; all?: boolean }

const time = (date: Date | null) => (date === null ? '-' : date.toISOString().replace(/\.\d{3}Z$/, 'Z'))
// Note: every cell is escaped: emails and messages come from users, and a control character
// (ESC…) printed raw would run on the operator's terminal; a tab would shift the columns.
const tsv = (lines: readonly (readonly (string | number)[])[]) => lines.map((cells) => cells.map((c) => escapeForTerminal(String(c))).join('\t')).join('\n') + '\n'
const plansList = apiKeyPlans.join('|')

/**
 * Runs one `uncle-rpc accounts` command, writing to `write`; `password` gives create's password
 * (else one is generated and printed once). Throws UsageError for bad usage or an unknown account.
 */
export async function accountsCommand(
  { db, write, password }: { db: Db; write: (text: string) => void; password?: string | undefined },
  name: string,
  args: readonly string[],
  flags: AccountsFlags,
): Promise<void> {
  const one = (what: string) => {
    if (args.length !== 1 || args[0] === undefined) throw new UsageError(`${name} takes ${what}`)
    return args[0]
  }
  if (name === 'create') {
    const email = normalizeEmail(one('one email'))
    if (!emailPattern.test(email)) throw new UsageError(`not an email address: "${escapeForTerminal(email)}"`)
    const plan = flags.plan ?? 'core'
    if (!isApiKeyPlan(plan)) throw new UsageError(`--plan must be one of ${plansList}`)
    const chosen = password ?? randomBytes(12).toString('base64url')
    const problem = passwordProblem(chosen, email)
    if (problem !== null) throw new UsageError(`password: ${problem}`)
    // Note: the operator vouches for the address: the account may make keys at once.
    const account = await insertAccount(db, { email, passwordHash: await hashPassword(chosen), plan, verified: true })
    if (account === null) throw new UsageError(`an account with email ${email} exists`)
    write(`created account ${email} (plan ${plan})${password === undefined ? `; its password, shown only once:\n${chosen}` : ''}\n`)
    return
  }
  if (name === 'list') {
    if (args.length > 0) throw new UsageError('list takes no arguments')
    const rows = await listAccounts(db)
    write(
      tsv([
        ['id', 'email', 'plan', 'keys', 'created', 'disabled'],
        ...rows.map((a) => [a.id, a.email === operatorEmail ? `${a.email} (operator: keys made with uncle-rpc keys)` : a.email, a.plan, a.keys, time(a.createdAt), time(a.disabledAt)]),
      ]),
    )
    return
  }
  if (name === 'set-plan') {
    const [email, plan] = args
    if (args.length !== 2 || email === undefined || plan === undefined || !isApiKeyPlan(plan)) throw new UsageError(`set-plan takes an email and one of ${plansList}`)
    if (!(await setAccountPlan(db, { email, plan }))) throw new UsageError(`no account with email ${escapeForTerminal(normalizeEmail(email))}`)
    write(`account ${escapeForTerminal(normalizeEmail(email))} and all its keys are now on the ${plan} plan (servers reload within 5 s)\n`)
    return
  }
  if (name === 'disable' || name === 'enable') {
    const email = one('one email')
    if (!(await setAccountDisabled(db, { email, disabled: name === 'disable' }))) throw new UsageError(`no account with email ${escapeForTerminal(normalizeEmail(email))}`)
    write(
      name === 'disable'
        ? `account ${escapeForTerminal(normalizeEmail(email))} disabled: signed out, cannot sign in, its keys are refused (within 5 s)\n`
        : `account ${escapeForTerminal(normalizeEmail(email))} enabled again\n`,
    )
    return
  }
  if (name === 'requests') {
    if (args.length > 0) throw new UsageError('requests takes no arguments (--all for granted ones too)')
    const rows = await listUpgradeRequests(db, { open: flags.all !== true })
    write(
      tsv([
        ['id', 'email', 'plan', 'asked', 'granted', 'message'],
        ...rows.map((r) => [r.id, r.email, r.plan, time(r.createdAt), time(r.grantedAt), (r.message ?? '-').replace(/[\n\t]+/g, ' ')]),
      ]),
    )
    return
  }
  throw new UsageError(`unknown command "${name}"`)
}
