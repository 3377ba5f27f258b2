/** One sample of a Prometheus text exposition. */
export type Sample = { name: string; labels: Readonly<Record<string, string>>; value: number }

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/
const labelPair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** Parses Prometheus text format (what prom-client writes) into samples; comments are skipped. */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const match = sampleLine.exec(line)
    if (match === null) continue
    const labels: Record<string, string> = {}
    for (const pair of (match[2] ?? '').matchAll(labelPair)) labels[pair[1]!] = pair[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))
    samples.push({ name: match[1]!, labels, value: Number(match[3]) })
  }
  return samples
}

/** The sum of the samples named `name` whose labels include every pair of `where`. */
export function sumSamples(samples: readonly Sample[], name: string, where: Readonly<Record<string, string>> = {}): number {
  let sum = 0
  for (const s of samples) if (s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v)) sum += s.value
  return sum
}

/** The metric families a Prometheus text declares (`# TYPE` lines), samples or not. */
export function metricFamilies(text: string): Set<string> {
  const names = new Set<string>()
  for (const match of text.matchAll(/^# TYPE (\S+) \S+$/gm)) names.add(match[1]!)
  return names
}
