/** The `--metrics-port`/`--metrics-host` lines of a command's --help. */
export const metricsUsage = `Metrics (Prometheus):
  --metrics-port <n>               the admin port: GET /metrics, GET /health (and GET /ready with
                                   full detail, on the rpc) on a server of its own (0: any free
                                   port, printed on stdout); default: none
  --metrics-host <addr>            address of the metrics port; default 127.0.0.1`

/** Where to serve metrics; absent = metrics off. */
export type MetricsListen = { port: number; host: string }
