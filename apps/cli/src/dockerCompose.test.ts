import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { parseEnv, parseNetworksConfig } from '@uncle-rpc/config'
import { repositoryRoot, runCli } from '@uncle-rpc/testing'
import { describe, expect, test } from 'vitest'
import { parse } from 'yaml'
import { commands } from './commands.js'

// docker-compose.yml is for users (no Docker engine runs here): keep it in step with the CLI.

type Service = { command?: string[]; image?: string; environment?: Record<string, string>; volumes?: string[]; ports?: string[] }
const compose = parse(readFileSync(join(repositoryRoot, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> }
const appServices = Object.entries(compose.services).filter(([, s]) => s.image === 'uncle-rpc:local')
const composeText = readFileSync(join(repositoryRoot, 'docker-compose.yml'), 'utf8')
/** A compose value as Docker reads it when the operator sets no variable: `${NAME:-default}` → default. */
const withDefaults = (value: string) => value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1')

describe('docker-compose.yml', () => {
  test('default: runs the same parts as `npm start`', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['dashboard', 'grafana', 'haproxy', 'indexer', 'migrate', 'postgres', 'prometheus', 'redis', 'rpc', 'sample-node'])
  })

  test('behavior: Prometheus scrapes the metrics ports the rpc and indexer serve; Grafana gets its files; images pinned', () => {
    for (const name of ['prometheus', 'grafana', 'haproxy']) expect(compose.services[name]?.image).toMatch(/:v?\d+\.\d+\.\d+$/)
    const scrape = parse(readFileSync(join(repositoryRoot, 'docker/prometheus/prometheus.yml'), 'utf8')) as {
      rule_files: string[]
      scrape_configs: { dns_sd_configs: { names: string[]; port: number }[] }[]
    }
    const targets = scrape.scrape_configs.flatMap((c) => c.dns_sd_configs.map((d) => [d.names[0], d.port] as const))
    for (const [service, port] of targets) {
      const command = compose.services[service as string]?.command ?? []
      expect(command[command.indexOf('--metrics-port') + 1]).toBe(String(port))
      expect(command[command.indexOf('--metrics-host') + 1]).toBe('0.0.0.0')
    }
    expect(targets.map(([service]) => service).sort()).toEqual(['indexer', 'rpc'])
    for (const name of ['prometheus', 'grafana', 'haproxy'])
      for (const volume of compose.services[name]?.volumes ?? [])
        if (volume.startsWith('./')) expect(existsSync(join(repositoryRoot, volume.split(':')[0]!))).toBe(true)
  })

  test('behavior: Prometheus loads the alert rules mounted beside its config', () => {
    const config = parse(readFileSync(join(repositoryRoot, 'docker/prometheus/prometheus.yml'), 'utf8')) as { rule_files: string[] }
    const volumes = compose.services.prometheus?.volumes ?? []
    const configPath = volumes.find((v) => v.startsWith('./docker/prometheus/prometheus.yml:'))!.split(':')[1]!
    for (const file of config.rule_files) {
      const mounted = join(dirname(configPath), file)
      expect(volumes).toContain(`./docker/prometheus/${file}:${mounted}:ro`)
    }
    expect(config.rule_files).toEqual(['alerts.yml'])
  })

  test('behavior: haproxy is the one entry to every rpc of --scale rpc=N, health-checked on the admin port', () => {
    const rpc = compose.services.rpc?.command ?? []
    const flag = (name: string) => rpc[rpc.indexOf(name) + 1]
    // A published port on rpc would stop --scale rpc=2 (two containers cannot bind one host port).
    expect(compose.services.rpc?.ports).toBeUndefined()
    expect(compose.services.haproxy?.ports).toContain(`${flag('--port')}:${flag('--port')}`)
    expect(compose.services.haproxy?.volumes).toContain('./docker/haproxy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro')
    const cfg = readFileSync(join(repositoryRoot, 'docker/haproxy/haproxy.cfg'), 'utf8')
    expect(cfg).toContain(`bind :${flag('--port')}\n`)
    expect([...cfg.matchAll(/^ {2}server-template rpc \d+ (\S+)$/gm)].map((m) => m[1])).toEqual([`rpc:${flag('--port')}`, `rpc:${flag('--port')}`])
    expect([...cfg.matchAll(/ check port (\d+) /g)].map((m) => m[1])).toEqual([flag('--metrics-port'), flag('--metrics-port')])
    expect(cfg).toContain('http-check send meth GET uri /ready\n')
  })

  test.each(appServices.map(([name, s]) => [name, s.command ?? []] as const))('behavior: %s runs a real command with real flags', async (_name, command) => {
    const [name, ...args] = command
    expect(commands).toHaveProperty(name as string)
    const help = await runCli([name as string, '--help'])
    expect(help.code).toBe(0)
    for (const flag of args.filter((a) => a.startsWith('--'))) expect(help.stdout).toContain(flag)
  })

  test('behavior: Postgres and Redis are published on 127.0.0.1 unless the operator names another address', () => {
    expect(compose.services.postgres?.ports?.map(withDefaults)).toEqual(['127.0.0.1:5432:5432'])
    expect(compose.services.redis?.ports?.map(withDefaults)).toEqual(['127.0.0.1:6379:6379'])
    expect(compose.services.postgres?.ports).toEqual(['${POSTGRES_BIND:-127.0.0.1}:5432:5432'])
  })

  test('behavior: npm start\'s default DATABASE_URL logs in to the compose Postgres (its user, password and published port), as the apps in compose do', () => {
    const password = withDefaults(compose.services.postgres?.environment?.POSTGRES_PASSWORD ?? '')
    expect(password).not.toBe('')
    const local = new URL(parseEnv({}).DATABASE_URL)
    expect([local.username, local.password, local.hostname, local.port]).toEqual(['postgres', password, '127.0.0.1', '5432'])
    for (const [, s] of appServices) {
      const url = new URL(withDefaults(s.environment?.DATABASE_URL ?? ''))
      expect([url.username, url.password, url.hostname, url.pathname]).toEqual(['postgres', password, 'postgres', local.pathname])
    }
    expect(composeText).toContain('DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/uncle_rpc')
  })

  test('behavior: the dashboard\'s development settings (open sign-up, emails to the log) are named as such in the file and in README', () => {
    expect(compose.services.dashboard?.command).toContain('open')
    expect(withDefaults(compose.services.dashboard?.environment?.SMTP_URL ?? 'unset')).toBe('')
    expect(composeText).toMatch(/The dashboard runs with development settings: open sign-up and, without SMTP_URL, every email/)
    const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8')
    expect(readme).toMatch(/compose's dashboard runs with development settings: open sign-up, and emails \(their links included\) written to its log/)
  })

  test('behavior: the mounted networks config is valid and points at the sample-node service', () => {
    const config = parseNetworksConfig(readFileSync(join(repositoryRoot, 'docker/networks.json'), 'utf8'), 'docker/networks.json')
    expect(config.networks.map((n) => new URL(n.rpcUrl ?? '').hostname)).toEqual(['sample-node'])
    for (const [, s] of appServices) expect(s.environment?.UNCLE_RPC_CONFIG).toBe('/config/networks.json')
  })
})
