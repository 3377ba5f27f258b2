import type { AddressInfo, Server } from 'node:net'

export type ListenParameters = {
  port: number
  host: string
  /** listen(2) backlog; Node's default (511) when absent. */
  backlog?: number | undefined
}

/**
 * Starts `server` (node:net, node:http) listening; resolves with the bound address, rejects with
 * the listen error (EADDRINUSE, EACCES…) instead of leaving it to an 'error' event.
 */
export function listen(server: Server, { port, host, backlog }: ListenParameters): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen({ port, host, ...(backlog !== undefined && { backlog }) }, () => {
      server.off('error', reject)
      resolve(server.address() as AddressInfo)
    })
  })
}
