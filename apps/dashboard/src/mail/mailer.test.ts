import { Writable } from 'node:stream'
import { createLogger } from '@uncle-rpc/config'
import { describe, expect, test } from 'vitest'
import { startTestMailServer } from '../_test/mail.js'
import { createMailer } from './mailer.js'
import { resetEmail } from './messages.js'

describe('createMailer', () => {
  const logged = () => {
    const lines: Record<string, unknown>[] = []
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>))
        done()
      },
    })
    return { lines, logger: createLogger({ level: 'info', name: 'mail-test', destination }) }
  }

  test('default: SMTP_URL set: the message goes to the SMTP server; the log says only that one was sent', async () => {
    const server = await startTestMailServer()
    const { lines, logger } = logged()
    const mailer = createMailer({ logger }, { smtpUrl: server.url, from: 'dashboard <no-reply@example.com>' })
    try {
      await mailer.send(resetEmail('dev@example.com', 'http://127.0.0.1:8547/#/reset/abc'))
      const mail = await server.next('dev@example.com')
      expect(mail.raw).toMatch(/^From: dashboard <no-reply@example.com>\r$/m)
      expect(mail.raw).toMatch(/^Subject: Reset your uncle-rpc dashboard password\r$/m)
      expect(mail.text).toContain('http://127.0.0.1:8547/#/reset/abc')
      expect(lines.map((l) => [l.msg, l.kind])).toEqual([['email sent', 'reset']])
    } finally {
      mailer.close()
      await server.close()
    }
  })

  test('behavior: no SMTP_URL (development, npm start): one log line with the recipient and the link', async () => {
    const { lines, logger } = logged()
    const mailer = createMailer({ logger }, { smtpUrl: undefined, from: 'x <x@example.com>' })
    expect(mailer.mode).toBe('log')
    await mailer.send(resetEmail('dev@example.com', 'http://127.0.0.1:8547/#/reset/abc'))
    expect(lines).toMatchObject([
      { level: 40, msg: 'email not sent (SMTP_URL is unset): "Reset your uncle-rpc dashboard password" to dev@example.com; open', link: 'http://127.0.0.1:8547/#/reset/abc' },
    ])
  })
})
