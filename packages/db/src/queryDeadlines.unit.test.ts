import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { createQueryDeadlines } from './queryDeadlines.js'

describe('createQueryDeadlines', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  test('behavior: a query answered in time never expires', () => {
    const deadlines = createQueryDeadlines(100)
    const expired = vi.fn()
    const deadline = deadlines.start(expired)
    vi.advanceTimersByTime(99)
    deadlines.settle(deadline)
    vi.advanceTimersByTime(1000)
    expect(expired).not.toHaveBeenCalled()
    expect(deadlines.waiting).toBe(0)
  })

  test('behavior: each query expires once, at its own due time, oldest first', () => {
    const deadlines = createQueryDeadlines(100)
    const order: string[] = []
    deadlines.start(() => order.push('a'))
    vi.advanceTimersByTime(30)
    const b = deadlines.start(() => order.push('b'))
    vi.advanceTimersByTime(30)
    deadlines.start(() => order.push('c'))
    vi.advanceTimersByTime(40)
    expect(order).toEqual(['a'])
    vi.advanceTimersByTime(30)
    expect(order).toEqual(['a', 'b'])
    deadlines.settle(b)
    vi.advanceTimersByTime(30)
    expect(order).toEqual(['a', 'b', 'c'])
    vi.advanceTimersByTime(1000)
    expect(order).toEqual(['a', 'b', 'c'])
    expect(deadlines.waiting).toBe(0)
  })

  test('behavior: one timer for many queries, none once they are all answered and it has fired', () => {
    const deadlines = createQueryDeadlines(100)
    const all = Array.from({ length: 1000 }, () => deadlines.start(() => undefined))
    expect(vi.getTimerCount()).toBe(1)
    for (const deadline of all) deadlines.settle(deadline)
    vi.advanceTimersByTime(100)
    expect(vi.getTimerCount()).toBe(0)
  })

  test('behavior: a query started after the timer was armed is still bounded by its own due time', () => {
    const deadlines = createQueryDeadlines(100)
    const first = deadlines.start(() => undefined)
    vi.advanceTimersByTime(90)
    deadlines.settle(first)
    const late = vi.fn()
    deadlines.start(late)
    vi.advanceTimersByTime(99)
    expect(late).not.toHaveBeenCalled()
    vi.advanceTimersByTime(2)
    expect(late).toHaveBeenCalledOnce()
  })
})
