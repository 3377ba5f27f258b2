import { expect, test } from 'vitest'
import { untilSignal } from './untilSignal.js'

// process.emit runs the listeners as a delivered signal would, without signalling the process.

test('default: resolves with the first signal and stops listening for both', async () => {
  const before = { int: process.listenerCount('SIGINT'), term: process.listenerCount('SIGTERM') }
  const signalled = untilSignal()
  expect(process.listenerCount('SIGTERM')).toBe(before.term + 1)
  process.emit('SIGTERM', 'SIGTERM')
  expect(await signalled).toBe('SIGTERM')
  expect({ int: process.listenerCount('SIGINT'), term: process.listenerCount('SIGTERM') }).toEqual(before)
})

test('behavior: SIGINT as well', async () => {
  const signalled = untilSignal()
  process.emit('SIGINT', 'SIGINT')
  expect(await signalled).toBe('SIGINT')
})
