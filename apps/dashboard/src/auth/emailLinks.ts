import { randomBytes } from 'node:crypto'
import type { Logger } from '@uncle-rpc/config'
import type { Db } from '@uncle-rpc/db'
import { type AccountTokenPurpose, hashSecret, insertAccountToken } from '@uncle-rpc/db/accounts'
import type { Mailer, MailMessage } from '../mail/mailer.js'
import { resetLinkMinutes, verifyLinkHours } from '../mail/messages.js'

const lifetimeMs: Record<AccountTokenPurpose, number> = { verify: verifyLinkHours * 3_600_000, reset: resetLinkMinutes * 60_000 }

/** Makes single-use links and mails them, in the background so the answer's timing tells nothing. */
export type EmailLinks = {
  /** Stores a new token for the account and mails `message(link)`; does not wait for the mail server. */
  send(accountId: number, purpose: AccountTokenPurpose, message: (link: string) => MailMessage): Promise<void>
  /** Waits for the emails on their way (tests, shutdown). */
  settled(): Promise<void>
}

/** Links are `<publicUrl>/#/<purpose>/<token>`: the token rides in the fragment, which never reaches a server log. */
export function createEmailLinks({ db, mailer, logger }: { db: Db; mailer: Mailer; logger: Logger }, { publicUrl }: { /** Read per link (known only once the server listens). */ publicUrl: () => string }): EmailLinks {
  const pending = new Set<Promise<void>>()
  return {
    async send(accountId, purpose, message) {
      const token = randomBytes(32).toString('base64url')
      await insertAccountToken(db, { tokenHash: hashSecret(token), accountId, purpose, expiresAt: new Date(Date.now() + lifetimeMs[purpose]) })
      const mail = message(`${publicUrl()}/#/${purpose}/${token}`)
      const sending = mailer
        .send(mail)
        // Note: the error's code only: a mail server's message may quote the recipient.
        .catch((error: unknown) => logger.error({ msg: 'sending email failed', kind: mail.kind, code: (error as { code?: unknown })?.code ?? 'unknown' }))
        .finally(() => pending.delete(sending))
      pending.add(sending)
    },
    settled: async () => {
      await Promise.all([...pending])
    },
  }
}
