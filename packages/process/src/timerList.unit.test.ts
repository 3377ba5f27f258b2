import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { createTimerList } from './timerList.js'

type Wait = { due: number; name: string }

describe('createTimerList', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  const list = (expired: string[]) => createTimerList<Wait>({ dueOf: (w) => w.due, expire: (w) => expired.push(w.name) })
  const wait = (name: string, ms: number): Wait => ({ due: performance.now() + ms, name })

  test('behavior: a value removed in time never expires', () => {
    const expired: string[] = []
    const waits = list(expired)
    const entry = waits.add(wait('a', 100))
    vi.advanceTimersByTime(99)
    waits.remove(entry)
    vi.advanceTimersByTime(1000)
    expect(expired).toEqual([])
    expect(waits.size).toBe(0)
  })

  test('behavior: each value expires once, at its own due time, oldest first', () => {
    const expired: string[] = []
    const waits = list(expired)
    waits.add(wait('a', 100))
    vi.advanceTimersByTime(30)
    const b = waits.add(wait('b', 100))
    vi.advanceTimersByTime(30)
    waits.add(wait('c', 100))
    vi.advanceTimersByTime(40)
    expect(expired).toEqual(['a'])
    vi.advanceTimersByTime(30)
    expect(expired).toEqual(['a', 'b'])
    waits.remove(b)
    vi.advanceTimersByTime(30)
    expect(expired).toEqual(['a', 'b', 'c'])
    vi.advanceTimersByTime(1000)
    expect(expired).toEqual(['a', 'b', 'c'])
    expect(waits.size).toBe(0)
  })

  test('behavior: one timer for many values, none once they are all removed and it has fired', () => {
    const waits = list([])
    const all = Array.from({ length: 1000 }, (_, i) => waits.add(wait(String(i), 100)))
    expect(vi.getTimerCount()).toBe(1)
    for (const entry of all) waits.remove(entry)
    vi.advanceTimersByTime(100)
    expect(vi.getTimerCount()).toBe(0)
  })

  test('behavior: a value added after the timer was armed is still bounded by its own due time', () => {
    const expired: string[] = []
    const waits = list(expired)
    const first = waits.add(wait('first', 100))
    vi.advanceTimersByTime(90)
    waits.remove(first)
    waits.add(wait('late', 100))
    vi.advanceTimersByTime(99)
    expect(expired).toEqual([])
    vi.advanceTimersByTime(2)
    expect(expired).toEqual(['late'])
  })

  test('behavior: a due time moved later while waiting is kept (the timer fires, finds it not due, waits again)', () => {
    const expired: string[] = []
    const waits = list(expired)
    const moving = wait('moving', 100)
    waits.add(moving)
    vi.advanceTimersByTime(50)
    moving.due += 100
    vi.advanceTimersByTime(60)
    expect(expired).toEqual([])
    vi.advanceTimersByTime(91)
    expect(expired).toEqual(['moving'])
  })
})
