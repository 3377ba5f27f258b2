import { parentPort } from 'node:worker_threads'
import { Era1FileRefusedError, hashesReady } from '@uncle-rpc/chain'
import { type ThreadErrorData, toThreadErrorData } from './threadError.js'
import { type VerifyEpochParameters, verifyEpoch } from './verifyEpoch.js'

// The era1 verification thread: decodes and verifies one file per message, so the main thread
// stays free to stream the previous epoch into Postgres meanwhile.

export type VerifyRequest = { id: number; params: VerifyEpochParameters }
export type VerifyResponse =
  | { id: number; ok: ReturnType<typeof verifyEpoch> }
  | { id: number; refused: { epoch: number | undefined; file: string; cause: ThreadErrorData } }
  | { id: number; error: ThreadErrorData }

// Note: the WebAssembly hashers load asynchronously; verification waits for them once.
await hashesReady()

parentPort?.on('message', ({ id, params }: VerifyRequest) => {
  let response: VerifyResponse
  try {
    response = { id, ok: verifyEpoch(params) }
  } catch (error) {
    if (error instanceof Era1FileRefusedError) response = { id, refused: { epoch: error.epoch, file: error.file, cause: toThreadErrorData(error.cause) } }
    else response = { id, error: toThreadErrorData(error) }
  }
  // Note: the verified blocks' buffers move back to the main thread (transferred, not copied).
  const transfer = 'ok' in response ? [response.ok.blocks.numbers.buffer as ArrayBuffer, response.ok.blocks.hashes.buffer as ArrayBuffer] : []
  parentPort?.postMessage(response, transfer)
})
