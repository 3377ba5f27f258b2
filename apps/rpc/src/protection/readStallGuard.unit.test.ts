import { sleep } from '@uncle-rpc/process'
import { describe, expect, test, vi } from 'vitest'
import { createDeadline, createReadGate, DeadlineExceededError } from './readStallGuard.js'

const never = new Promise<never>(() => undefined)

describe('createDeadline', () => {
  test('default: a read that takes longer than the deadline while nothing else completes fails', async () => {
    const deadline = createDeadline(50)
    const started = performance.now()
    await expect(deadline(never)).rejects.toThrow(DeadlineExceededError)
    expect(performance.now() - started).toBeLessThan(200)
    expect(await deadline(Promise.resolve(7))).toBe(7)
  })

  test('behavior: a queued read waits while other reads keep completing, up to 4× the deadline', async () => {
    const deadline = createDeadline(50)
    const slow = deadline(sleep(120).then(() => 'late but alive'))
    // Another read completes every 30 ms: progress, so the slow one is not failed at 50 ms.
    for (let i = 0; i < 5; i++) await deadline(sleep(30))
    expect(await slow).toBe('late but alive')
    const started = performance.now()
    const stuck = deadline(never)
    // Note: some of these outlive the 4× cap themselves; they are settled below.
    const busy = Promise.allSettled(Array.from({ length: 10 }, (_, i) => deadline(sleep(30 * i))))
    await expect(stuck).rejects.toThrow(DeadlineExceededError)
    expect(performance.now() - started).toBeGreaterThanOrEqual(195)
    expect(performance.now() - started).toBeLessThan(300)
    await busy
  })

  test('behavior: reads started apart each fail a deadline after their own start', async () => {
    const deadline = createDeadline(50)
    const failedAfter = (started: number) => (error: unknown) => (expect(error).toBeInstanceOf(DeadlineExceededError), performance.now() - started)
    const firstStarted = performance.now()
    const first = deadline(never).catch(failedAfter(firstStarted))
    await sleep(30)
    const secondStarted = performance.now()
    const second = deadline(never).catch(failedAfter(secondStarted))
    const [a, b] = await Promise.all([first, second])
    for (const waited of [a, b]) {
      expect(waited).toBeGreaterThanOrEqual(49)
      expect(waited).toBeLessThan(120)
    }
    // The second did not wait for a timer of its own past the first one's (nor fail with it).
    expect(performance.now() - firstStarted).toBeGreaterThanOrEqual(79)
  })
})

describe('createDeadline, on a fake clock', () => {
  test('behavior: one timer for any number of waiting reads, each still failed at its own time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] })
    try {
      const deadline = createDeadline(50)
      const failed: number[] = []
      const reads = Array.from({ length: 100 }, (_, i) => deadline(never).catch(() => failed.push(i)))
      expect(vi.getTimerCount()).toBe(1)
      await vi.advanceTimersByTimeAsync(20)
      const late = deadline(never).catch(() => failed.push(100))
      expect(vi.getTimerCount()).toBe(1)
      await vi.advanceTimersByTimeAsync(30)
      expect(failed).toHaveLength(100)
      await vi.advanceTimersByTimeAsync(19)
      expect(failed).toHaveLength(100)
      await vi.advanceTimersByTimeAsync(1)
      await Promise.all([...reads, late])
      expect(failed).toEqual(Array.from({ length: 101 }, (_, i) => i))
      expect(vi.getTimerCount()).toBe(0)
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('createReadGate', () => {
  test('default: opens after 5 consecutive failures, one probe after the cooldown, closes on success', async () => {
    const gate = createReadGate({ failureThreshold: 5, cooldownMs: 50 })
    for (let i = 0; i < 4; i++) gate.failed(gate.resumed)
    expect(gate.admit()).toBe(true)
    gate.failed(gate.resumed)
    expect(gate.admit()).toBe(false)
    await sleep(60)
    expect([gate.admit(), gate.admit()]).toEqual([true, false])
    gate.failed(gate.resumed)
    expect(gate.admit()).toBe(false)
    await sleep(60)
    expect(gate.admit()).toBe(true)
    gate.succeeded()
    expect([gate.admit(), gate.admit()]).toEqual([true, true])
  })

  test('behavior: a read begun before the database answered again fails after it: no new pause; one begun after does pause', async () => {
    const gate = createReadGate({ failureThreshold: 5, cooldownMs: 50 })
    // Ten reads start on the old server; five fail, the others hang (on a connection of a dead server).
    const before = Array.from({ length: 10 }, () => (gate.admit(), gate.resumed))
    for (const read of before.slice(0, 5)) gate.failed(read)
    expect(gate.state).toBe('open')
    // The database answers again (a heads read succeeded) and the pause ends.
    gate.succeeded()
    // The hung reads are cut now: they fail, but say nothing about the server that answers.
    for (const read of before.slice(5)) gate.failed(read)
    expect([gate.state, gate.admit()]).toEqual(['closed', true])
    // Reads begun after the recovery that fail do pause.
    for (let i = 0; i < 5; i++) {
      expect(gate.admit()).toBe(true)
      gate.failed(gate.resumed)
    }
    expect([gate.state, gate.admit()]).toEqual(['open', false])
  })

  test('behavior: after the cooldown only the probe decides; a read begun before the pause that fails meanwhile does not re-open', async () => {
    const gate = createReadGate({ failureThreshold: 1, cooldownMs: 30 })
    const stale = gate.resumed
    gate.failed(gate.resumed)
    expect(gate.state).toBe('open')
    await sleep(40)
    expect(gate.admit()).toBe(true)
    const probe = gate.resumed
    gate.failed(stale)
    expect([gate.state, gate.admit()]).toEqual(['half-open', false])
    gate.failed(probe)
    expect([gate.state, gate.admit()]).toEqual(['open', false])
  })
})
