import type { Logger } from '@uncle-rpc/config'
import type { WebSocket } from 'ws'
import type { AuthResult } from '../access/auth.js'
import { type KeyCheckDeps, keyVerdict } from '../admission/admission.js'
import type { Answer, Outcome } from '../pipeline/answer.js'
import type { FlowControl } from './wsFlowControl.js'
import type { WsKeepAlive } from './wsKeepAlive.js'
import type { WsAccepted } from './wsUpgrade.js'
import type { FrameBatch } from './wsSocket.js'

export type WsMessageDeps = Pick<KeyCheckDeps, 'auth' | 'usage'> & { answer: Answer; logger: Logger; keepAlive: WsKeepAlive }

/**
 * One connection's messages: the key is checked again, then each goes through answer() (rate
 * limits, failover by key setting — there are no per-message headers —, the handler) and its
 * answer is written on the same socket. A message refused because the key changed since the
 * upgrade is answered with the refusal and counted in usage.
 */
export function createMessageHandler(deps: WsMessageDeps, ws: WebSocket, upgrade: WsAccepted, flow: FlowControl, frames: FrameBatch): (text: string) => void {
  const { auth, usage, answer, logger, keepAlive } = deps
  const { network, key, headers } = upgrade

  /** The message's answer once its key is checked; undefined when the key refused it (answered and handled here). */
  function admitted(checked: AuthResult, text: string): Outcome | Promise<Outcome> | undefined {
    // Note: restrictions changed since the upgrade apply too (checked against the upgrade's headers).
    const verdict = keyVerdict(checked, network, headers, usage)
    if (verdict.ok) return answer(text, verdict.key, network, false)
    // Note: the answers framed before it leave first (and before a close frame).
    frames.flush()
    if (ws.readyState === ws.OPEN) ws.send(verdict.body)
    // Note: a key that cannot be checked now is answered with the error; the socket stays open.
    if (verdict.status === 503) return undefined
    ws.close(1008, verdict.status === 403 ? 'rejected due to project ID settings' : 'invalid project id')
    return undefined
  }

  function reply(outcome: Outcome | undefined): void {
    // Note: a refused message (-32005) is answered like any other; the socket stays open.
    // Note: a text frame whether the body is text or bytes (ws would send bytes as binary).
    // Note: framed here and written to the socket in whole frames (as ws's sender writes them), so frames never interleave.
    if (outcome !== undefined && outcome.body.length > 0 && ws.readyState === ws.OPEN) frames.write(outcome.body)
    flow.answered()
  }

  function failed(error: unknown): void {
    flow.answered()
    logger.error({ msg: 'WebSocket message failed', error: (error as Error).message })
  }

  return (text) => {
    keepAlive.heard(ws)
    flow.started()
    // Note: the key is checked again per message (a map lookup), so a revocation or a limit change reaches open sockets.
    // Note: no promise hop while nothing has to wait (a key in memory, a cached answer): each costs a turn of the microtask queue.
    try {
      const checked = auth.authenticate(key)
      const outcome = checked instanceof Promise ? checked.then((c) => admitted(c, text)) : admitted(checked, text)
      if (outcome instanceof Promise) outcome.then(reply, failed)
      else reply(outcome)
    } catch (error) {
      failed(error)
    }
  }
}
