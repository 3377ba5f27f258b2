import { sleep } from '@uncle-rpc/process'
import { expect, test } from 'vitest'
import { type BreakerState, createBreaker } from './breaker.js'

test('behavior: opens after the threshold, one probe after the cooldown, a failed probe re-opens, a success closes', async () => {
  const changes: [BreakerState, BreakerState, string | undefined][] = []
  const breaker = createBreaker({ failureThreshold: 2, cooldownMs: 30, onChange: ({ from, to, reason }) => changes.push([from, to, reason]) })
  breaker.failed('timeout')
  expect(breaker.admit()).toBe(true)
  breaker.failed('timeout')
  expect([breaker.state, breaker.admit()]).toEqual(['open', false])
  // A call that was in flight when it opened only counts.
  breaker.failed('late')
  await sleep(40)
  expect([breaker.admit(), breaker.admit(), breaker.state]).toEqual([true, false, 'half-open'])
  breaker.failed('http status')
  expect([breaker.state, breaker.admit()]).toEqual(['open', false])
  await sleep(40)
  expect(breaker.admit()).toBe(true)
  breaker.succeeded()
  expect([breaker.state, breaker.admit(), breaker.admit()]).toEqual(['closed', true, true])
  expect(changes).toEqual([
    ['closed', 'open', 'timeout'],
    ['open', 'half-open', undefined],
    ['half-open', 'open', 'http status'],
    ['open', 'half-open', undefined],
    ['half-open', 'closed', undefined],
  ])
})
