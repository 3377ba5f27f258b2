import type { Registry } from 'prom-client'

// Counters and histograms for a hot path, read by prom-client's registries like its own (the same
// exposition; cluster aggregation sums them). Note: prom-client converts, validates and hashes the
// labels on every inc() and observe(), even through labels(); a series here is bound once, and an
// update is an addition (with metrics on, the label handling was about a quarter of a cached
// answer's CPU). prom-client's registries take any object with a name, get() and reset().

/** What prom-client's registries read from a metric (`get()`, as its own metrics return it). */
type MetricValue = { labels: Record<string, string | number>; value: number; metricName?: string }
type MetricData = { name: string; help: string; type: 'counter' | 'histogram'; aggregator: 'sum'; values: MetricValue[] }

/** The key of a label set, in `labelNames` order. */
function seriesKey<L extends string>(labelNames: readonly L[], labels: Record<L, string>): string {
  return labelNames.map((name) => labels[name]).join('\u0000')
}

export type BoundCounterParameters<L extends string> = { name: string; help: string; labelNames: readonly L[]; registers: readonly Registry[] }

/** One label set's series of a BoundCounter. */
export type CounterSeries = { inc(n?: number): void }

/** A counter whose series are bound once (see above); a series is exported at 0 from when it is bound. */
export class BoundCounter<L extends string> {
  readonly type = 'counter'
  readonly aggregator = 'sum'
  private readonly series = new Map<string, { labels: Record<L, string>; value: number }>()

  constructor(private readonly parameters: BoundCounterParameters<L>) {
    for (const registry of parameters.registers) registry.registerMetric(this as never)
  }

  get name(): string {
    return this.parameters.name
  }

  labels(labels: Record<L, string>): CounterSeries {
    const key = seriesKey(this.parameters.labelNames, labels)
    let entry = this.series.get(key)
    if (entry === undefined) {
      entry = { labels: { ...labels }, value: 0 }
      this.series.set(key, entry)
    }
    const series = entry
    return {
      inc(n = 1) {
        series.value += n
      },
    }
  }

  async get(): Promise<MetricData> {
    const { name, help } = this.parameters
    return { name, help, type: this.type, aggregator: this.aggregator, values: [...this.series.values()].map(({ labels, value }) => ({ labels: { ...labels }, value })) }
  }

  reset(): void {
    for (const series of this.series.values()) series.value = 0
  }
}

/** One label set's series of a BoundHistogram: observe() is a bucket search and three additions. */
export type HistogramSeries = { observe(value: number): void }

export type BoundHistogramParameters<L extends string> = {
  name: string
  help: string
  labelNames: readonly L[]
  /** Upper bounds, ascending (`+Inf` is implied). */
  buckets: readonly number[]
  registers: readonly Registry[]
}

/** A histogram whose series are bound once (see above); a series is exported at zero from when it is bound. */
export class BoundHistogram<L extends string> {
  readonly name: string
  readonly help: string
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  private readonly labelNames: readonly L[]
  private readonly bounds: readonly number[]
  private series = new Map<string, { labels: Record<L, string>; counts: number[]; sum: number; count: number }>()

  constructor({ name, help, labelNames, buckets, registers }: BoundHistogramParameters<L>) {
    this.name = name
    this.help = help
    this.labelNames = labelNames
    this.bounds = [...buckets]
    for (const registry of registers) registry.registerMetric(this as never)
  }

  /** The series of `labels` (created at zero, so it is exported before its first observation). */
  labels(labels: Record<L, string>): HistogramSeries {
    const key = seriesKey(this.labelNames, labels)
    let entry = this.series.get(key)
    if (entry === undefined) {
      entry = { labels: { ...labels }, counts: new Array<number>(this.bounds.length).fill(0), sum: 0, count: 0 }
      this.series.set(key, entry)
    }
    const { bounds } = this
    const series = entry
    return {
      observe(value: number) {
        let i = 0
        while (i < bounds.length && value > bounds[i]!) i++
        if (i < bounds.length) series.counts[i]!++
        series.sum += value
        series.count++
      },
    }
  }

  async get(): Promise<MetricData> {
    const values: MetricValue[] = []
    const bucket = `${this.name}_bucket`
    for (const { labels, counts, sum, count } of this.series.values()) {
      let cumulative = 0
      for (const [i, le] of this.bounds.entries()) {
        cumulative += counts[i]!
        values.push({ labels: { le, ...labels }, value: cumulative, metricName: bucket })
      }
      values.push({ labels: { le: '+Inf', ...labels }, value: count, metricName: bucket })
      values.push({ labels: { ...labels }, value: sum, metricName: `${this.name}_sum` })
      values.push({ labels: { ...labels }, value: count, metricName: `${this.name}_count` })
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }

  reset(): void {
    for (const series of this.series.values()) {
      series.counts.fill(0)
      series.sum = 0
      series.count = 0
    }
  }
}
