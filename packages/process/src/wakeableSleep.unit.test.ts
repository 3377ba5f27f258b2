import { expect, test } from 'vitest'
import { createWakeableSleep } from './wakeableSleep.js'

test('default: wake() ends a long sleep at once', async () => {
  const { sleep, wake } = createWakeableSleep()
  const slept = sleep(60_000).then(() => 'woken')
  wake()
  expect(await slept).toBe('woken')
})

test('behavior: a wake while nobody sleeps ends the next sleep at once, only that one', async () => {
  const { sleep, wake } = createWakeableSleep()
  wake()
  await sleep(60_000)
  const next = await Promise.race([sleep(50).then(() => 'slept'), new Promise((resolve) => setImmediate(() => resolve('still sleeping')))])
  expect(next).toBe('still sleeping')
})
