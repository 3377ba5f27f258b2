import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join } from 'node:path'
import { parseEnv, parseNetworksConfig } from '@uncle-rpc/config'
import { repositoryRoot, runCli } from '@uncle-rpc/testing'
import { describe, expect, test } from 'vitest'
import { parse } from 'yaml'
import { finalStage, finalStageFiles } from './_test/dockerfile.js'
import { commands } from '../../apps/cli/src/commands.js'

// docker-compose.yml and the Dockerfile are for users (no Docker engine runs here): keep them in
// step with the CLI, and the image free of what does not run.

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

type Manifest = { name: string; dependencies?: Record<string, string>; workspaces?: string[] }
const readManifest = (path: string) => JSON.parse(readFileSync(join(repositoryRoot, path), 'utf8')) as Manifest
const workspaces = readManifest('package.json').workspaces!.flatMap((pattern) => {
  const group = pattern.replace('/*', '')
  return readdirSync(join(repositoryRoot, group))
    .filter((name) => existsSync(join(repositoryRoot, group, name, 'package.json')))
    .map((name) => `${group}/${name}`)
})

/** The package a bare import specifier names (`pg/lib/x` → pg, `@scope/a/b` → @scope/a). */
const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/')

describe('Dockerfile', () => {
  // Note: the integration project's global setup has built dist/, which the build stage holds too.
  const dockerfile = readFileSync(join(repositoryRoot, 'Dockerfile'), 'utf8')
  const files = finalStageFiles(dockerfile, repositoryRoot)
  const paths = files.map(([path]) => path)

  test('default: the final stage holds the command, its compiled files, the migrations and the data it reads; on Node 24', () => {
    expect(finalStage(dockerfile)[0]).toMatch(/^FROM node:24-bookworm-slim$/)
    for (const path of ['apps/cli/bin/uncle-rpc.js', 'apps/cli/dist/main.js', 'apps/rpc/dist/cli.js', 'migrations/meta/_journal.json', 'packages/chain/data/mainnet-epoch-roots.txt', 'packages/accounts/data/commonPasswords.txt', 'apps/dashboard/static/index.html'])
      expect(paths).toContain(path)
    // npm ci needs every workspace's manifest.
    for (const workspace of workspaces) expect(paths).toContain(`${workspace}/package.json`)
  })

  test('behavior: no TypeScript source, test, bench, fixture or doc is in the image', () => {
    const unwanted = paths.filter(
      (path) => /\.[cm]?tsx?$/.test(path) || /\.(test|bench)\.|(^|\/)test[A-Za-z]*\.js$/.test(path) || path.split('/').some((part) => ['src', '_test', 'bench', 'docs', 'fixtures'].includes(part)),
    )
    expect(unwanted).toEqual([])
  })

  test('behavior: production dependencies only: npm ci --omit=dev, and every import of a shipped file is a builtin or a production dependency of its package, whose files are shipped', () => {
    expect(finalStage(dockerfile).filter((line) => /^RUN\s.*\bnpm ci\b/.test(line))).toEqual([expect.stringMatching(/npm ci --omit=dev\b/)])
    const builtins = new Set(builtinModules)
    const problems: string[] = []
    for (const [path, local] of files) {
      if (!path.endsWith('.js')) continue
      const workspace = workspaces.find((w) => path.startsWith(`${w}/`))
      const dependencies = workspace === undefined ? {} : (readManifest(`${workspace}/package.json`).dependencies ?? {})
      const text = readFileSync(local, 'utf8')
      // Note: esbuild's output: a static import's `from "x"` ends its line; a dynamic one is import("x").
      for (const [, a, b, c] of text.matchAll(/^(?:import|export|\})[^\n]*?\bfrom\s*"([^"]+)";?$|^import\s*"([^"]+)";?$|\bimport\("([^"]+)"\)/gm)) {
        const specifier = (a ?? b ?? c)!
        if (specifier.startsWith('.') || specifier.startsWith('node:') || builtins.has(specifier)) continue
        const name = packageOf(specifier)
        if (!(name in dependencies)) problems.push(`${path} imports ${name}, not a production dependency of ${workspace}`)
        const target = workspaces.find((w) => readManifest(`${w}/package.json`).name === name)
        if (target !== undefined && !paths.some((p) => p.startsWith(`${target}/dist/`))) problems.push(`${path} imports ${name}, whose dist/ is not copied`)
      }
    }
    expect(problems).toEqual([])
  })

  test('behavior: npm ls --omit=dev has no TypeScript runner, compiler or test tool', () => {
    const installed = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: repositoryRoot, encoding: 'utf8' })
    const names = new Set(installed.split('\n').map((line) => line.split('/node_modules/').at(-1)))
    for (const tool of ['tsx', 'esbuild', 'typescript', 'vitest', 'eslint', 'drizzle-kit']) expect(names.has(tool), tool).toBe(false)
  })
})
