import { randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'

/**
 * A lease in Redis that at most one process holds at a time (SET NX PX, renewed while held):
 * who follows a network's head. Correctness does not depend on it (writes are consistent under
 * Postgres locks); it keeps the other processes from doing the same work twice.
 */
export type TipLock = {
  /** Takes the lease if it is free (or already ours); true when held. */
  acquire(): Promise<boolean>
  /** Gives the lease up (only if still ours) and stops renewing. */
  release(): Promise<void>
  /** Held as of the last acquire or renewal. */
  readonly held: boolean
}

// Note: renew and release only touch the key while it still holds our token. Renewing a lease
// that expired while no one else took it takes it again (2): a holder whose event loop was busy
// past the lease (so the renewal timer fired late) does not lose it to nobody. Only a lease that
// another process holds is lost (0).
const renewScript = `local v = redis.call('get', KEYS[1])
if v == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
if v == false then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 2 end
return 0`
const releaseScript = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`

export type CreateTipLockParameters = {
  key: string
  /** Lease length; renewed every third of it. */
  ttlMs: number
  /**
   * Called once when a held lease is lost: `taken` (another process holds it now) or `unreachable`
   * (Redis did not answer for longer than the lease, so another may hold it).
   */
  onLost?: (reason: 'taken' | 'unreachable') => void
}

export function createTipLock(redis: Redis, { key, ttlMs, onLost }: CreateTipLockParameters): TipLock {
  const token = randomBytes(16).toString('hex')
  // Invariant: `timer` is set exactly while `held`.
  let held = false
  let renewedAt = 0
  let timer: NodeJS.Timeout | undefined

  const lose = (reason: 'taken' | 'unreachable') => {
    if (!held) return
    held = false
    clearInterval(timer)
    timer = undefined
    onLost?.(reason)
  }

  // Note: a renewal that never comes back (a frozen Redis, a connection that went silent) neither
  // answers nor fails; the ticks after it see it still out and give the lease up once it would have
  // expired, while another process may take it. A late tick with no renewal out (a busy event
  // loop) still renews.
  let renewing = false
  const renew = async () => {
    if (renewing) {
      if (Date.now() - renewedAt >= ttlMs) lose('unreachable')
      return
    }
    renewing = true
    try {
      const result = await redis.eval(renewScript, 1, key, token, String(ttlMs))
      if (!held) return
      if (result === 0) lose('taken')
      else renewedAt = Date.now()
    } catch {
      // Note: Redis unreachable: the lease may still be ours until it would have expired.
      if (Date.now() - renewedAt >= ttlMs) lose('unreachable')
    } finally {
      renewing = false
    }
  }

  return {
    get held() {
      return held
    },
    async acquire() {
      if (held) return true
      const result = await redis.set(key, token, 'PX', ttlMs, 'NX')
      if (result !== 'OK') return false
      held = true
      renewedAt = Date.now()
      timer = setInterval(() => void renew(), Math.max(100, Math.floor(ttlMs / 3)))
      timer.unref()
      return true
    },
    async release() {
      const wasHeld = held
      held = false
      clearInterval(timer)
      timer = undefined
      if (wasHeld) await redis.eval(releaseScript, 1, key, token)
    },
  }
}
