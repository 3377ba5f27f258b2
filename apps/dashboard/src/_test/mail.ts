import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

// Test-only: a real SMTP server in-process (smtp-server, the library nodemailer's authors
// maintain) that keeps every message, so tests read the emailed links as a person would.

export type ReceivedMail = { to: string[]; raw: string; text: string }

export type TestMailServer = {
  url: string
  received: ReceivedMail[]
  /** The next message to `to` (waits for it), from `after` messages on. */
  next(to: string, after?: number): Promise<ReceivedMail>
  close(): Promise<void>
}

/** Decodes a quoted-printable body (nodemailer wraps long lines with soft breaks). */
function decodeQuotedPrintable(body: string): string {
  return body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
}

/** The text of a single-part message: its body after the headers, decoded. */
function textOf(raw: string): string {
  const split = raw.indexOf('\r\n\r\n')
  const headers = raw.slice(0, split)
  const body = raw.slice(split + 4)
  if (/content-transfer-encoding:\s*quoted-printable/i.test(headers)) return decodeQuotedPrintable(body)
  if (/content-transfer-encoding:\s*base64/i.test(headers)) return Buffer.from(body, 'base64').toString('utf8')
  return body
}

export async function startTestMailServer(): Promise<TestMailServer> {
  const received: ReceivedMail[] = []
  const waiters = new Set<() => void>()
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8')
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, text: textOf(raw) })
        for (const wake of waiters) wake()
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    next: async (to, after = 0) => {
      for (;;) {
        const found = received.slice(after).find((m) => m.to.includes(to))
        if (found) return found
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake)
            resolve()
          }
          waiters.add(wake)
        })
      }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/** The token of the first `#/<purpose>/<token>` link in a message. */
export function linkToken(mail: ReceivedMail, purpose: 'verify' | 'reset'): string {
  const match = new RegExp(`#/${purpose}/([A-Za-z0-9_-]{43})`).exec(mail.text)
  if (match === null) throw new Error(`no ${purpose} link in: ${mail.text}`)
  return match[1]!
}
