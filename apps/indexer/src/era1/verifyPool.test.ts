import { Era1FileRefusedError } from '@uncle-rpc/chain'
import { writeSyntheticEra1 } from '@uncle-rpc/sample-node'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { ThreadError } from './threadError.js'
import { createVerifyPool, type VerifyPool } from './verifyPool.js'

// The verification thread (a real worker thread) refuses a file as the main thread does, and the
// refusal's cause crosses with it: its name, message and the thread's stack.

let file: { name: string; bytes: Uint8Array }
let pool: VerifyPool

beforeAll(async () => {
  await writeSyntheticEra1({ seed: 3, blocks: 300, network: 'synthetic', onFile: (f) => void (file = f) })
  pool = createVerifyPool({ threads: 1 })
})

afterAll(() => pool?.close())

/** The refusal of the file under a name that says another epoch. */
async function refusal(verifier: VerifyPool): Promise<Era1FileRefusedError> {
  const name = file.name.replace('-00000-', '-00007-')
  const error = await verifier.verify({ bytes: file.bytes.slice(), name, want: [] }).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(Era1FileRefusedError)
  return error as Era1FileRefusedError
}

test('behavior: a refusal in the thread keeps its cause: same reason and message as on the main thread, the cause with its name and stack', async () => {
  const inThread = await refusal(pool)
  const onMain = await refusal(createVerifyPool({ threads: 0 }))
  expect(inThread.reason).toMatch(/the file name says epoch 7, but the content gives 0/)
  expect([inThread.reason, inThread.message, inThread.epoch]).toEqual([onMain.reason, onMain.message, onMain.epoch])
  const cause = inThread.cause as ThreadError
  expect(cause).toBeInstanceOf(ThreadError)
  expect(cause.name).toBe((onMain.cause as Error).name)
  expect(cause.message).toBe((onMain.cause as Error).message)
  expect(cause.stack).toContain('verifyEra1File')
}, 60_000)
