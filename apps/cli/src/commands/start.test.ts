import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { request } from 'node:http'
import { join } from 'node:path'
import { hashHeader, headerFromRpc } from '@uncle-rpc/chain'
import { createDb } from '@uncle-rpc/db'
import { listApiKeys } from '@uncle-rpc/db/accounts'
import { createTestDatabase, type TestDatabase } from '@uncle-rpc/db/testing'
import { freePort, repositoryRoot, runCli, startPostgresServer } from '@uncle-rpc/testing'
import { demoKeyLabel, demoKeyPath } from '../demoKey.js'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'

// The newcomer's first command, run as they would: `npm start` in a terminal (a pseudo-terminal
// from util-linux's `script`), then the printed curl, then Ctrl-C.

/** The terminal's text without colors, cursor movement and carriage returns. */
const ansi = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*[A-Za-z]`, 'g')
const plain = (text: string) => text.replace(ansi, '').replace(/\r/g, '')

/** `npm start -- <args>` in a pseudo-terminal until its banner is printed; then the text, and stop() (Ctrl-C). */
async function startUntilBanner(args: string, env: NodeJS.ProcessEnv): Promise<{ text: string; stop: () => Promise<void> }> {
  const child = spawn('script', ['-qfec', `npm start -- ${args}`, '/dev/null'], { cwd: repositoryRoot, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString()
  })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const stop = async () => {
    child.stdin.write('\x03')
    await exited
  }
  const deadline = Date.now() + 150_000
  while (!/Stop: Ctrl-C/.test(plain(out)) && Date.now() < deadline && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 200))
  return { text: plain(out), stop }
}

/** A POST with its own Host header (fetch sends the URL's). */
function postWithHost(url: string, host: string, body: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { host, 'content-type': 'application/json' } }, (res) => {
      let text = ''
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString()
      })
      res.on('end', () => resolve(JSON.parse(text)))
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** Every curl the banner prints, sent; the uncle hash each answers (its header hashed again). */
async function answerEveryCurl(text: string): Promise<string[]> {
  const curls = [...text.matchAll(/curl -s -X POST -H 'Content-Type: application\/json' --data '(.*)' (http:\/\/\S+)$/gm)]
  const hashes: string[] = []
  for (const [, body = '', url = ''] of curls) {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    const uncle = headerFromRpc(((await response.json()) as { result: Record<string, unknown> | null }).result)
    expect(hashHeader(uncle), url).toBe(uncle.hash)
    hashes.push(uncle.hash)
  }
  return hashes
}

describe('npm start', () => {
  let database: TestDatabase
  beforeAll(async () => {
    database = await createTestDatabase({ create: false })
  })
  afterAll(async () => {
    rmSync(demoKeyPath(join(repositoryRoot, '.uncle-rpc'), database.url), { force: true })
    await database.drop()
  })

  test('default: starts everything, readable lines and a live status line (no raw JSON), a curl whose answer is a real uncle, the dashboard, stops cleanly on Ctrl-C', async () => {
    const child = spawn('script', ['-qfec', 'npm start -- --port 0 --node-port 0 --dashboard-port 0', '/dev/null'], {
      cwd: repositoryRoot,
      env: { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'info', LOG_FORMAT: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString()
    })
    const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')))
    try {
      const deadline = Date.now() + 90_000
      // The summary, then the live line drawn again below it.
      while (!/Stop: Ctrl-C[\s\S]*mainnet +\[.*blocks\/s.*req\/s/.test(plain(out)) && Date.now() < deadline && child.exitCode === null)
        await new Promise((resolve) => setTimeout(resolve, 200))
      const curl = /curl -s -X POST -H 'Content-Type: application\/json' --data '(.*)' (http:\/\/\S+)$/m.exec(plain(out))
      expect(curl, `stdout: ${out}\nstderr: ${err}`).not.toBeNull()
      expect(plain(out)).toMatch(/^ {2}WebSocket {2}ws:\/\/127\.0\.0\.1:\d+\/ws\/v3\/\S+$/m)
      expect(plain(out)).toMatch(/^\d\d:\d\d:\d\d INFO {2}rpc +rpc listening port=\d+/m)
      expect(plain(out)).toMatch(/^mainnet {2}\[[█░]{20}\] +\d+% {2}[\d,]+ \/ [\d,]+ {2}[\d,.]+ blocks\/s {2}ETA \S+ {2}[\d,.]+ req\/s$/m)
      expect(plain(out).split('\n').filter((line) => line.trimStart().startsWith('{'))).toEqual([])
      expect(plain(out)).toMatch(/^ {2}WebSocket {2}ws:\/\/127\.0\.0\.1:\d+\/ws\/v3\/\S+$/m)
      const dashboard = /^ {2}Dashboard {2}(http:\/\/127\.0\.0\.1:\d+) /m.exec(plain(out))?.[1]
      expect(dashboard, plain(out)).toBeDefined()
      const page = await fetch(`${dashboard}/`)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('<title>uncle-rpc dashboard</title>')
      // Sign-up without SMTP_URL: the email's link shows in the log; it verifies and signs in; the
      // new key's endpoints are the config's networks.
      const json = { 'content-type': 'application/json' }
      const signup = await fetch(`${dashboard}/api/signup`, { method: 'POST', headers: json, body: JSON.stringify({ email: 'new@example.com', password: 'correct horse battery' }) })
      expect(signup.status).toBe(202)
      const mailed = /WARN +dashboard +email not sent \(SMTP_URL is unset\): "Verify your email for the uncle-rpc dashboard" to new@example.com; open link=http:\/\/127\.0\.0\.1:\d+\/#\/verify\/([\w-]{43})/
      while (!mailed.test(plain(out)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200))
      const token = mailed.exec(plain(out))?.[1]
      expect(token, plain(out)).toBeDefined()
      const verified = await fetch(`${dashboard}/api/verify`, { method: 'POST', headers: json, body: JSON.stringify({ token }) })
      expect(verified.status).toBe(200)
      const { csrfToken } = (await verified.json()) as { csrfToken: string }
      const cookie = (verified.headers.get('set-cookie') ?? '').split(';')[0] as string
      const key = await fetch(`${dashboard}/api/keys`, { method: 'POST', headers: { ...json, cookie, 'x-csrf-token': csrfToken }, body: JSON.stringify({ name: 'mine' }) })
      expect(key.status).toBe(201)
      expect(((await key.json()) as { endpoints: { network: string }[] }).endpoints.map((e) => e.network)).toEqual(['mainnet'])
      const [, body = '', url = ''] = curl as RegExpExecArray
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      expect(response.status).toBe(200)
      const answer = (await response.json()) as { id: number; result: Record<string, unknown> | null }
      expect(answer.id).toBe(1)
      const uncle = headerFromRpc(answer.result)
      expect(hashHeader(uncle)).toBe(uncle.hash)
      expect(answer.result?.totalDifficulty).toBeNull()
    } finally {
      // Ctrl-C typed into the terminal: the line discipline sends SIGINT to npm and everything below it.
      child.stdin.write('\x03')
    }
    // npm itself may exit non-zero on the SIGINT; what matters is that everything below it stopped.
    await exited
    expect(err).toBe('')
    expect(plain(out)).not.toMatch(/exited \(.*\); stopping everything/)
    const url = /(http:\/\/127\.0\.0\.1:\d+)\/v3\//.exec(plain(out))?.[1]
    // Stopped within 2 s of npm's exit: polled, so the test goes on as soon as it is.
    await vi.waitFor(() => expect(fetch(`${url}/health`)).rejects.toThrow(), { timeout: 2_000, interval: 100 })
  }, 180_000)

  test('behavior: three starts keep one live demo key; --config with two networks on the sample node: both listed with their addresses (publicUrl shown), every curl answers, the printed status command shows each network\'s progress', async () => {
    const fresh = await createTestDatabase({ create: false })
    const dir = mkdtempSync(join(tmpdir(), 'uncle-rpc-start-config-'))
    const keyFile = demoKeyPath(join(repositoryRoot, '.uncle-rpc'), fresh.url)
    try {
      const env = { DATABASE_URL: fresh.url, LOG_LEVEL: 'info', LOG_FORMAT: '' }
      const keyOf = (text: string) => /^ {2}demo key {3}([0-9a-f]{32}) /m.exec(text)?.[1]
      const keys: (string | undefined)[] = []
      for (const run of ['first', 'second']) {
        const started = await startUntilBanner('--port 0 --node-port 0 --dashboard-port 0', env)
        try {
          expect(started.text, `${run} start: ${started.text.slice(-3000)}`).toMatch(/Stop: Ctrl-C/)
          expect(started.text).toMatch(/^uncle-rpc is running: network "mainnet" \(chain id 1337, the bundled sample node's synthetic chain\)$/m)
          expect(await answerEveryCurl(started.text)).toHaveLength(1)
          keys.push(keyOf(started.text))
        } finally {
          await started.stop()
        }
      }
      const [nodePort, rpcPort] = [await freePort(), await freePort()]
      const config = join(dir, 'two-networks.json')
      const node = `http://127.0.0.1:${nodePort}`
      writeFileSync(
        config,
        JSON.stringify({
          networks: [
            { name: 'mainnet', chainId: 1337, rpcUrl: node, confirmations: 0 },
            { name: 'devnet', chainId: 1337, rpcUrl: node, toBlock: 3000, confirmations: 0, hosts: ['devnet.localhost'], publicUrl: `http://devnet.localhost:${rpcPort}` },
          ],
        }),
      )
      const started = await startUntilBanner(`--config ${config} --port ${rpcPort} --node-port ${nodePort} --dashboard-port 0`, env)
      try {
        const { text } = started
        expect(text, text.slice(-3000)).toMatch(/Stop: Ctrl-C/)
        const key = keyOf(text)
        keys.push(key)
        expect(text).toContain(`uncle-rpc is running: 2 networks
  network "mainnet" (chain id 1337, the bundled sample node's synthetic chain)
    HTTP       http://127.0.0.1:${rpcPort}/mainnet/v3/${key}
    WebSocket  ws://127.0.0.1:${rpcPort}/mainnet/ws/v3/${key}
  network "devnet" (chain id 1337, the bundled sample node's synthetic chain)
    HTTP       http://devnet.localhost:${rpcPort}/v3/${key}
    WebSocket  ws://devnet.localhost:${rpcPort}/ws/v3/${key}
`)
        expect(text).toMatch(/^ {2}demo key {3}[0-9a-f]{32} \(plan growth, kept from the last start;/m)
        const answered = await answerEveryCurl(text)
        expect(answered).toHaveLength(2)
        // devnet's own host answers devnet; mainnet's bare /v3 is not addressed by a host any more (two networks).
        const devnetCall = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }
        expect(await postWithHost(`http://127.0.0.1:${rpcPort}/v3/${key}`, `devnet.localhost:${rpcPort}`, JSON.stringify(devnetCall))).toEqual({ jsonrpc: '2.0', id: 1, result: '0x539' })
        const progress = /^Progress: npx uncle-rpc status --config (\S+) /m.exec(text)?.[1]
        expect(progress).toBe(config)
        const status = await runCli(['status', '--config', progress as string, '--json'], { env: { ...process.env, DATABASE_URL: fresh.url } })
        const networks = JSON.parse(status.stdout) as { network: string; nodeHead: string | null; target: string | null; indexedHeight: string }[]
        expect(networks.map((n) => [n.network, n.nodeHead !== null, n.target !== null])).toEqual([
          ['mainnet', true, true],
          ['devnet', true, true],
        ])
        expect(networks[1]?.target).toBe('3000')
        for (const n of networks) expect(Number(n.indexedHeight), n.network).toBeGreaterThan(0)
      } finally {
        await started.stop()
      }
      expect(new Set(keys).size, keys.join(' ')).toBe(1)
      const database = createDb({ url: fresh.url, max: 1 })
      try {
        expect((await listApiKeys(database.db)).filter((k) => k.label === demoKeyLabel && k.revokedAt === null)).toHaveLength(1)
      } finally {
        await database.close()
      }
    } finally {
      rmSync(keyFile, { force: true })
      rmSync(dir, { recursive: true, force: true })
      await fresh.drop()
    }
  }, 420_000)

  test('behavior: a password-protected Postgres (as docker compose starts it): with the password in DATABASE_URL npm start comes up and its curl answers; without it, the message says authentication failed and how to fix it', async () => {
    const server = await startPostgresServer({ password: 'postgres' })
    const url = server.url('start_with_password')
    try {
      const refused = await runCli(['start', '--port', '0', '--node-port', '0', '--dashboard-port', '0'], {
        env: { ...process.env, DATABASE_URL: url.replace('postgres:postgres@', 'postgres@') },
      })
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(`PostgreSQL at 127.0.0.1:${server.port} answered, but authentication failed for user "postgres"`)
      expect(refused.stderr).toContain(`export DATABASE_URL=postgres://postgres:PASSWORD@127.0.0.1:${server.port}/start_with_password`)
      expect(refused.stderr).not.toContain('not answering')
      const started = await startUntilBanner('--port 0 --node-port 0 --dashboard-port 0', { DATABASE_URL: url, LOG_LEVEL: 'info', LOG_FORMAT: '' })
      try {
        expect(started.text, started.text.slice(-3000)).toMatch(/Stop: Ctrl-C/)
        expect(await answerEveryCurl(started.text)).toHaveLength(1)
      } finally {
        await started.stop()
        rmSync(demoKeyPath(join(repositoryRoot, '.uncle-rpc'), url), { force: true })
      }
    } finally {
      await server.remove()
    }
  }, 240_000)

  test('error: the database dropped between two starts: the second start indexes it again, and its curl answers an uncle', async () => {
    const fresh = await createTestDatabase({ create: false })
    try {
      for (const run of ['first', 'after the database was dropped']) {
        const child = spawn('script', ['-qfec', 'npm start -- --port 0 --node-port 0 --dashboard-port 0', '/dev/null'], {
          cwd: repositoryRoot,
          env: { ...process.env, DATABASE_URL: fresh.url, LOG_LEVEL: 'info', LOG_FORMAT: '' },
          stdio: ['pipe', 'pipe', 'pipe'],
        })
        let out = ''
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString()
        })
        const exited = new Promise((resolve) => child.once('exit', resolve))
        try {
          const deadline = Date.now() + 120_000
          while (!/--data '.*' http:\/\/\S+$/m.test(plain(out)) && Date.now() < deadline && child.exitCode === null)
            await new Promise((resolve) => setTimeout(resolve, 200))
          const curl = /curl -s -X POST -H 'Content-Type: application\/json' --data '(.*)' (http:\/\/\S+)$/m.exec(plain(out))
          expect(curl, `${run} start printed no curl: ${plain(out).slice(-3000)}`).not.toBeNull()
          const [, body = '', url = ''] = curl as RegExpExecArray
          const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
          const uncle = headerFromRpc(((await response.json()) as { result: Record<string, unknown> | null }).result)
          expect(hashHeader(uncle)).toBe(uncle.hash)
        } finally {
          child.stdin.write('\x03')
          await exited
        }
        // Note: the database only, as a newcomer starting over does; the queues in Redis stay.
        await fresh.dropDatabase()
      }
    } finally {
      rmSync(demoKeyPath(join(repositoryRoot, '.uncle-rpc'), fresh.url), { force: true })
      await fresh.drop()
    }
  }, 300_000)
})
