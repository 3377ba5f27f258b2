import type { Hex } from '@uncle-rpc/chain'
import type { KeyAccess } from './keyAccess.js'

/** What the server needs to know about a key: its plan and the limits in force (its overrides, else the plan's). */
export type KeyRecord = Readonly<{
  id: number
  keyHash: Hex
  plan: string
  revoked: boolean
  /** Requests (batch entries) per second, shared by every RPC process. */
  requestsPerSecond: number
  /** Requests (batch entries) per UTC day. */
  requestsPerDay: number
  maxBatchSize: number
  /** The plan allows failover forwarding (growth, custom by default). */
  failoverAllowed: boolean
  /** The key's failover setting (`keys set-failover`); a request may also ask with `Enable-Failover: true`. */
  failover: boolean
  /** The key's networks, Origin and User-Agent allowlists and secret, compiled; undefined = no restriction. */
  access?: KeyAccess | undefined
}>

/** Where keys live (the api_keys table); keys are only ever seen as their sha256. */
export type KeyStore = {
  /** The key with this hash, revoked or not; null when there is none. */
  find(keyHash: Hex): Promise<KeyRecord | null>
  /** Every key (for the periodic refresh). */
  all(): Promise<readonly KeyRecord[]>
  /** Records that these keys were used at `at` (batched, see touchIntervalMs). */
  touch(keyHashes: readonly Hex[], at: Date): Promise<void>
}
