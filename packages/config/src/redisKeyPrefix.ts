/**
 * The Redis key prefix of a deployment, `uncle-rpc:<database name>`: the indexer's job queues and
 * head lease and the rpc's rate-limit windows live under it, so deployments (and test runs) that
 * share one Redis but write to different databases never share keys, while every process of one
 * deployment does.
 */
export function redisKeyPrefix(databaseUrl: string): string {
  return `uncle-rpc:${decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) || 'postgres'}`
}
