import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { repositoryRoot, requireTool } from '@uncle-rpc/testing'
import { describe, expect, test } from 'vitest'
import { parse } from 'yaml'

// The alert rules the compose Prometheus loads (docker/prometheus/alerts.yml): promtool checks them
// and runs their unit tests (alerts.test.yml); every alert has a test and a line in the runbook its
// `runbook` annotation names (docs/operations.md), and every metric they read is one the rpc or
// the indexer exports.

const run = promisify(execFile)
const prometheusDir = join(repositoryRoot, 'docker/prometheus')
type Rule = { alert?: string; expr: string; annotations?: { runbook?: string } }
const rules = (parse(readFileSync(join(prometheusDir, 'alerts.yml'), 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules)
const alerts = rules.flatMap((r) => (r.alert === undefined ? [] : [r.alert]))
const unitTests = parse(readFileSync(join(prometheusDir, 'alerts.test.yml'), 'utf8')) as {
  tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[]
}

/** `name: 'uncle_rpc_…'` in the apps' metrics files: the families the processes register. */
function exportedFamilies(): Set<string> {
  const files = ['apps/rpc/src/metrics.ts', 'apps/indexer/src/metrics.ts']
  const text = files.map((f) => readFileSync(join(repositoryRoot, f), 'utf8')).join('\n')
  return new Set([...text.matchAll(/name: '(uncle_rpc_[a-z_]+)'/g)].map((m) => m[1]!))
}

describe('alert rules', () => {
  test('default: at least the alerts the runbook promises, each with a firing test case and a line in its runbook', () => {
    expect(alerts).toEqual(
      expect.arrayContaining([
        'UncleRpcHeadLagHigh',
        'UncleRpcIndexerStalled',
        'UncleRpcErrorShareHigh',
        'UncleRpcLatencyP99High',
        'UncleRpcPartnerCircuitOpen',
        'UncleRpcVerificationFailures',
        'UncleRpcJobsFailed',
        'UncleRpcReplicaUnusable',
        'UncleRpcReplicaLagging',
        'UncleRpcReplicaNotReplicating',
        'UncleRpcRedisDown',
        'UncleRpcIndexerRedisDown',
      ]),
    )
    const cases = unitTests.tests.flatMap((t) => t.alert_rule_test)
    const firing = new Set(cases.filter((c) => c.exp_alerts.length > 0).map((c) => c.alertname))
    expect(alerts.filter((a) => !firing.has(a))).toEqual([])
    const annotations = new Set(rules.flatMap((r) => (r.alert === undefined ? [] : [r.annotations?.runbook])))
    expect([...annotations]).toEqual(['docs/operations.md#runbook'])
    const operations = readFileSync(join(repositoryRoot, 'docs/operations.md'), 'utf8')
    const runbook = operations.slice(operations.indexOf('\n## Runbook\n'))
    expect(runbook.length).toBeLessThan(operations.length)
    expect(alerts.filter((a) => !new RegExp(`^\\| \`${a}\` \\|`, 'm').test(runbook))).toEqual([])
  })

  test('behavior: the rules read only metrics the rpc and indexer export', () => {
    const read = new Set(rules.flatMap((r) => r.expr.match(/\buncle_rpc_[a-z_]+/g) ?? []).map((n) => n.replace(/_(bucket|sum|count)$/, '')))
    const exported = exportedFamilies()
    expect(read.size).toBeGreaterThan(10)
    expect([...read].filter((name) => !exported.has(name))).toEqual([])
  })

  const promtool = requireTool('promtool', 'prometheus')
  describe.skipIf(promtool === undefined)('promtool', () => {
    test('default: `promtool check config` (the compose Prometheus config with its rule file) and `check rules` pass', async () => {
      const config = await run(promtool!, ['check', 'config', join(prometheusDir, 'prometheus.yml')])
      expect(config.stdout).toMatch(/SUCCESS: 1 rule files found/)
      const checked = await run(promtool!, ['check', 'rules', join(prometheusDir, 'alerts.yml')])
      expect(checked.stdout).toContain(`SUCCESS: ${rules.length} rules found`)
    })

    test('default: `promtool test rules` passes', async () => {
      const tested = await run(promtool!, ['test', 'rules', 'alerts.test.yml'], { cwd: prometheusDir })
      expect(tested.stdout).toContain('SUCCESS')
    })
  })
})
