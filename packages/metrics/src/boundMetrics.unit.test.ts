import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client'
import { describe, expect, test } from 'vitest'
import { BoundCounter, BoundHistogram } from './boundMetrics.js'

const buckets = [0.001, 0.01, 0.1, 1]
// On a bound, between bounds, below the first, above the last.
const observations = [
  { labels: { network: 'mainnet', transport: 'http' }, values: [0.001, 0.0005, 0.05, 0.01, 3, 0.2] },
  { labels: { network: 'sepolia', transport: 'ws' }, values: [1, 0.0001] },
]

function both() {
  const reference = new Registry()
  const bound = new Registry()
  const theirs = new Histogram({ name: 'x_seconds', help: 'h', labelNames: ['network', 'transport'], buckets, registers: [reference] })
  const ours = new BoundHistogram({ name: 'x_seconds', help: 'h', labelNames: ['network', 'transport'], buckets, registers: [bound] })
  for (const { labels, values } of observations) {
    const series = ours.labels(labels)
    for (const value of values) {
      theirs.observe(labels, value)
      series.observe(value)
    }
  }
  return { reference, bound, ours }
}

describe('BoundHistogram', () => {
  test('default: exposes exactly what prom-client’s Histogram exposes for the same observations', async () => {
    const { reference, bound } = both()
    expect(await bound.metrics()).toBe(await reference.metrics())
    expect(await bound.metrics()).toContain('x_seconds_bucket{le="0.01",network="mainnet",transport="http"} 3')
  })

  test('behavior: cluster aggregation sums it like prom-client’s Histogram', async () => {
    const a = both()
    const b = both()
    const theirs = AggregatorRegistry.aggregate([await a.reference.getMetricsAsJSON(), await b.reference.getMetricsAsJSON()])
    const ours = AggregatorRegistry.aggregate([await a.bound.getMetricsAsJSON(), await b.bound.getMetricsAsJSON()])
    expect(await ours.metrics()).toBe(await theirs.metrics())
    expect(await ours.metrics()).toContain('x_seconds_count{network="mainnet",transport="http"} 12')
  })

  test('behavior: a bound series is exported at zero before its first observation; reset zeroes every series', async () => {
    const registry = new Registry()
    const histogram = new BoundHistogram({ name: 'y', help: 'h', labelNames: ['result'], buckets, registers: [registry] })
    const ok = histogram.labels({ result: 'ok' })
    expect(await registry.metrics()).toContain('y_count{result="ok"} 0')
    ok.observe(0.5)
    expect(await registry.metrics()).toContain('y_bucket{le="1",result="ok"} 1')
    registry.resetMetrics()
    expect(await registry.metrics()).toContain('y_sum{result="ok"} 0')
    ok.observe(2)
    expect(await registry.metrics()).toContain('y_bucket{le="+Inf",result="ok"} 1')
  })
})

describe('BoundCounter', () => {
  test('default: exposes and aggregates exactly as prom-client’s Counter for the same increments', async () => {
    const make = () => {
      const reference = new Registry()
      const bound = new Registry()
      const theirs = new Counter({ name: 'c_total', help: 'h', labelNames: ['network', 'outcome'], registers: [reference] })
      const ours = new BoundCounter({ name: 'c_total', help: 'h', labelNames: ['network', 'outcome'], registers: [bound] })
      for (const [labels, n] of [[{ network: 'mainnet', outcome: 'found' }, 3], [{ network: 'mainnet', outcome: 'null' }, 1], [{ network: 'sepolia', outcome: 'found' }, 2]] as const) {
        theirs.inc(labels, n)
        ours.labels(labels).inc(n)
      }
      theirs.inc({ network: 'mainnet', outcome: 'found' })
      ours.labels({ network: 'mainnet', outcome: 'found' }).inc()
      return { reference, bound }
    }
    const a = make()
    const b = make()
    expect(await a.bound.metrics()).toBe(await a.reference.metrics())
    expect(await a.bound.metrics()).toContain('c_total{network="mainnet",outcome="found"} 4')
    const theirs = AggregatorRegistry.aggregate([await a.reference.getMetricsAsJSON(), await b.reference.getMetricsAsJSON()])
    const ours = AggregatorRegistry.aggregate([await a.bound.getMetricsAsJSON(), await b.bound.getMetricsAsJSON()])
    expect(await ours.metrics()).toBe(await theirs.metrics())
    expect(await ours.metrics()).toContain('c_total{network="sepolia",outcome="found"} 4')
  })
})
