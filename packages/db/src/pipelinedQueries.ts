import pg from 'pg'

// pool.query over connections in node-postgres's pipeline mode (pg ≥ 8.23, `pipeline: true`): each
// connection carries up to `depth` statements at once, each written with its own Sync as soon as it
// is asked, so a statement need not wait for the one before it to come back. pg.Pool cannot do it
// itself: it lends a connection to one query at a time. Only pool.query goes this way;
// pool.connect() (transactions, COPY) keeps the pool's own connections.

export type PipelinedQueriesParameters = {
  /** Connections of their own, opened as needed (the pool's `max`). */
  connections: number
  /** Statements in flight on one connection at most; a query finding every connection full waits. */
  depth: number
  /** Waiting for room on a full set of connections, and connecting (the pool's connectionTimeoutMillis; 0: no bound). */
  connectTimeoutMs: number
  /** Called with each connection before it connects (the pool's query timeout, client.ts's boundQueries). */
  prepare?: ((client: pg.Client) => void) | undefined
  /** Told when a connection has connected. */
  onConnect?: (() => void) | undefined
  /** Told when a connection fails (it is dropped, with every statement in flight on it). */
  onConnectionError?: ((error: Error) => void) | undefined
}

export type PipelinedQueries = {
  /** Statements in flight per open connection (tests, metrics). */
  inFlight(): number[]
  /** Ends every connection (statements in flight on them complete first). */
  end(): Promise<void>
}

type Lane = { client: pg.Client; ready: Promise<void>; inFlight: number; dropped: boolean }

/** The error of a statement past the pool's query timeout (client.ts's queryTimeoutMessage). */
const readTimeoutMessage = 'Query read timeout'
/** The message of pg-pool for a query that found no connection in time, so callers tell it alike. */
const waitTimeoutMessage = 'timeout exceeded when trying to connect'

/**
 * Makes `pool.query(config, values)` (promise form) run on pipelined connections of its own, built
 * from the pool's options. Bounds kept as the pool's: each statement has the pool's
 * statement_timeout (Postgres cancels it, the connection carries on) and query timeout (`prepare`
 * bounds each statement: the connection is destroyed, which fails every statement in flight on
 * it, as they are behind the hung one); a cut
 * or failed connection fails its statements and is replaced by the next query that needs one.
 */
export function pipelineQueries(pool: pg.Pool, { connections, depth, connectTimeoutMs, prepare, onConnect, onConnectionError }: PipelinedQueriesParameters): PipelinedQueries {
  const plainQuery = pool.query.bind(pool) as (...args: unknown[]) => unknown
  const options = (pool as unknown as { options: pg.ClientConfig }).options
  const lanes: Lane[] = []
  const waiting: (() => void)[] = []
  let ended = false

  function drop(lane: Lane, error: Error): void {
    if (lane.dropped) return
    lane.dropped = true
    const at = lanes.indexOf(lane)
    if (at >= 0) lanes.splice(at, 1)
    if (!ended) onConnectionError?.(error)
    lane.client.end().catch(() => undefined)
    // Note: a waiting query may now open a connection in its place.
    wake()
  }

  function open(): Lane {
    const client = new pg.Client({ ...options, pipeline: true })
    prepare?.(client)
    const lane: Lane = { client, ready: Promise.resolve(), inFlight: 0, dropped: false }
    // Note: without a listener a cut connection's 'error' would crash the process.
    client.on('error', (error) => drop(lane, error))
    client.on('end', () => drop(lane, new Error('Connection terminated unexpectedly')))
    lane.ready = client.connect().then(
      () => onConnect?.(),
      (error: unknown) => {
        drop(lane, error as Error)
        throw error
      },
    )
    lanes.push(lane)
    return lane
  }

  /** The open connection with the fewest statements in flight, a new one while all are busy and there is room, or undefined when every one is full. */
  function pick(): Lane | undefined {
    let best: Lane | undefined
    for (const lane of lanes) if (best === undefined || lane.inFlight < best.inFlight) best = lane
    if ((best === undefined || best.inFlight > 0) && lanes.length < connections) return open()
    return best !== undefined && best.inFlight < depth ? best : undefined
  }

  function wake(): void {
    while (waiting.length > 0 && (lanes.length < connections || lanes.some((lane) => lane.inFlight < depth))) waiting.shift()!()
  }

  function acquire(): Promise<Lane> {
    if (ended) return Promise.reject(new Error('Cannot use a pool after calling end on the pool'))
    const lane = pick()
    if (lane !== undefined) {
      lane.inFlight++
      return Promise.resolve(lane)
    }
    return new Promise<Lane>((resolve, reject) => {
      const turn = () => {
        clearTimeout(timer)
        acquire().then(resolve, reject)
      }
      const timer =
        connectTimeoutMs > 0
          ? setTimeout(() => {
              const at = waiting.indexOf(turn)
              if (at >= 0) waiting.splice(at, 1)
              reject(new Error(waitTimeoutMessage))
            }, connectTimeoutMs)
          : undefined
      waiting.push(turn)
    })
  }

  async function query(config: unknown, values?: unknown): Promise<unknown> {
    const lane = await acquire()
    try {
      await lane.ready
      return await lane.client.query(config as pg.QueryConfig, values as unknown[] | undefined)
    } catch (error) {
      // Note: the socket of a statement past the query timeout is destroyed, but the connection
      // closes later; a query asked meanwhile would be written to it and fail. Dropped now instead.
      if ((error as Error | undefined)?.message === readTimeoutMessage) drop(lane, error as Error)
      throw error
    } finally {
      lane.inFlight--
      wake()
    }
  }

  ;(pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) =>
    // Note: the callback form (none of ours) keeps the pool's own connections.
    typeof args[args.length - 1] === 'function' ? plainQuery(...args) : query(args[0], args[1])

  // Note: the pool's gauges (metrics, the pool-exhausted alert) count the pipelined connections too.
  const own = (name: 'totalCount' | 'idleCount' | 'waitingCount'): (() => number) => {
    for (let proto: object | null = Object.getPrototypeOf(pool); proto !== null; proto = Object.getPrototypeOf(proto)) {
      const getter = Object.getOwnPropertyDescriptor(proto, name)?.get
      if (getter !== undefined) return getter.bind(pool) as () => number
    }
    return () => 0
  }
  const counted = { totalCount: own('totalCount'), idleCount: own('idleCount'), waitingCount: own('waitingCount') }
  Object.defineProperties(pool, {
    totalCount: { get: () => counted.totalCount() + lanes.length },
    idleCount: { get: () => counted.idleCount() + lanes.filter((lane) => lane.inFlight === 0).length },
    waitingCount: { get: () => counted.waitingCount() + waiting.length },
  })

  return {
    inFlight: () => lanes.map((lane) => lane.inFlight),
    async end() {
      ended = true
      for (const turn of waiting.splice(0)) turn()
      await Promise.all(lanes.splice(0).map((lane) => lane.client.end().catch(() => undefined)))
    },
  }
}
