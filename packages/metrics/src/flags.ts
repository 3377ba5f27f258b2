/** The `--metrics-port`/`--metrics-host` lines of a command's --help. */
export const metricsUsage = `Metrics (Prometheus):
  --metrics-port <n>               serve GET /metrics on this port (0: any free port, printed on
                                   stdout); default: no metrics
  --metrics-host <addr>            address of the metrics port; default 127.0.0.1`

/** Where to serve metrics; absent = metrics off. */
export type MetricsListen = { port: number; host: string }
