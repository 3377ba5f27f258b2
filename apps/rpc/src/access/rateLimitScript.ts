import { RateLimitReplyError } from '../errors.js'

// The Redis side of the rate limits: an atomic script that grants a process tokens (a lease) from
// a key's budgets, so every RPC process sharing the Redis sees one budget per key. Fixed windows:
// the current second and the current UTC day, both read from Redis's clock (TIME), so the
// processes' clocks do not matter.
//
// KEYS[1]  the key's base name, e.g. `uncle-rpc:<database>:rl:<key id>`
// ARGV     requests per second, requests per day, tokens wanted, tokens given back (unused from
//          the caller's previous lease), the Redis second of that lease, the day's count to start
//          from when Redis has none (-1: unknown, ask me), the latest Redis time (ms) at which the
//          call still counts (0: any time)
// returns  { tokens granted, used this second, used today, ms left in the second,
//            s left in the day, this second }; tokens granted is -1 when Redis has no count for
//          the day and none was given (Redis lost its data, or the day just began): the caller
//          reads the day's count from usage_daily and calls again with it; -2 when the call ran
//          after its deadline: nothing was taken (the caller stopped waiting and decided locally).
// Given-back tokens are subtracted from the windows they were taken from, if still current (also
// by a call past its deadline: the caller gave them up when it sent the call).
export const rateLimitLua = `
local t = redis.call('TIME')
local now = tonumber(t[1])
local usec = tonumber(t[2])
local day = math.floor(now / 86400)
local left_in_day = 86400 - (now % 86400)
local skey = KEYS[1] .. ':s:' .. now
local dkey = KEYS[1] .. ':d:' .. day
local rps = tonumber(ARGV[1])
local daily = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local back = tonumber(ARGV[4])
local back_second = tonumber(ARGV[5])
local seed = tonumber(ARGV[6])
local deadline = tonumber(ARGV[7] or '0')
if back > 0 then
  if back_second == now and redis.call('EXISTS', skey) == 1 then redis.call('DECRBY', skey, back) end
  if math.floor(back_second / 86400) == day and redis.call('EXISTS', dkey) == 1 then redis.call('DECRBY', dkey, back) end
end
if deadline > 0 and now * 1000 + math.floor(usec / 1000) > deadline then
  return { -2, 0, 0, 1000 - math.floor(usec / 1000), left_in_day, now }
end
if redis.call('EXISTS', dkey) == 0 then
  if seed < 0 then return { -1, 0, 0, 1000 - math.floor(usec / 1000), left_in_day, now } end
  redis.call('SET', dkey, seed, 'EX', left_in_day + 3600)
end
local used = math.max(0, tonumber(redis.call('GET', skey) or '0'))
local used_day = math.max(0, tonumber(redis.call('GET', dkey) or '0'))
local grant = math.max(0, math.min(want, rps - used, daily - used_day))
if grant > 0 then
  if redis.call('INCRBY', skey, grant) == grant then redis.call('EXPIRE', skey, 2) end
  if redis.call('INCRBY', dkey, grant) == grant then redis.call('EXPIRE', dkey, left_in_day + 3600) end
end
return { grant, used + grant, used_day + grant, 1000 - math.floor(usec / 1000), left_in_day, now }
`

/** The script's reply, decoded. */
export type RateLimitReply = {
  /** -1: Redis has no count for the day; call again with it. -2: the call ran past its deadline and took nothing. */
  granted: number
  used: number
  usedToday: number
  msLeftInSecond: number
  secondsLeftInDay: number
  second: number
}

/** Decodes the script's reply (throws on an unexpected shape). */
export function decodeRateLimitReply(reply: unknown): RateLimitReply {
  if (!Array.isArray(reply) || reply.length !== 6 || !reply.every((n) => typeof n === 'number') || (reply[0] as number) < -2)
    throw new RateLimitReplyError()
  const [granted, used, usedToday, msLeftInSecond, secondsLeftInDay, second] = reply as number[] as [number, number, number, number, number, number]
  return { granted, used, usedToday, msLeftInSecond, secondsLeftInDay, second }
}

/**
 * Tokens a process asks for beyond what its waiting requests need, so that most requests are
 * admitted from memory: a tenth of the per-second limit (a thousandth of the daily one), 0 for
 * small limits, where every request is decided by Redis and the budget is exact across processes.
 */
export function leaseSize(requestsPerSecond: number, requestsPerDay: number): number {
  return Math.floor(Math.min(requestsPerSecond / 10, requestsPerDay / 1000))
}

/** The UTC day (`YYYY-MM-DD`) of a Redis second. */
export function dayOfSecond(second: number): string {
  return new Date(second * 1000).toISOString().slice(0, 10)
}
