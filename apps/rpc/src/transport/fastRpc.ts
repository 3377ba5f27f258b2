import type { Logger } from '@uncle-rpc/config'
import type { FastAnswer, FastPathDeps, FastRequest, HeadCheck } from '@uncle-rpc/wire'
import type { Admission, Admitted, Refusal } from '../admission/admission.js'
import { failoverRequested } from '../admission/admission.js'
import type { Answer, Outcome } from '../pipeline/answer.js'
import { failedRequestBody, outcomeHeaders } from './http.js'

/**
 * The fast path's answer to a request it read: the same admission (overload, network, key,
 * restrictions, Content-Type) and answer() as http.ts, with the same statuses, bodies and headers.
 * A body over the limit never gets here (the parser hands it to node:http, which answers 413).
 * A head whose body has not all arrived is admitted at once (check), as node:http's listener does
 * before it reads a body, so a refused body is never kept.
 */
export function createFastRpc({ admit, answer, logger, closing }: { admit: Admission; answer: Answer; logger: Logger; closing: () => boolean }): FastPathDeps<Admitted> {
  const answered = (outcome: Outcome, base: readonly string[]): FastAnswer => ({
    status: outcome.status,
    body: outcome.body,
    headers: outcomeHeaders(base, outcome.retryAfter, outcome.failover),
  })
  const refusal = (checked: Refusal): FastAnswer => ({ status: checked.status, body: checked.body, headers: checked.headers })
  const headCheck = (checked: Admitted | Refusal): HeadCheck<Admitted> => (checked.ok ? { ok: true, pass: checked } : { ok: false, refusal: refusal(checked) })

  function admitted(checked: Admitted | Refusal, request: FastRequest, body: Buffer): FastAnswer | Promise<FastAnswer> {
    if (!checked.ok) return refusal(checked)
    const outcome = answer(body.toString('utf8'), checked.key, checked.network, failoverRequested(request.enableFailover))
    // Note: a sync answer (key in memory, cached result) stays sync: a promise hop costs a microtask per request.
    return outcome instanceof Promise ? outcome.then((o) => answered(o, checked.headers)) : answered(outcome, checked.headers)
  }

  const fields = (request: FastRequest) => ({
    pathNetwork: request.network,
    key: request.key,
    host: request.host,
    origin: request.origin,
    userAgent: request.userAgent,
    authorization: request.authorization,
    contentType: request.contentType,
  })

  return {
    check(request) {
      const checked = admit(fields(request))
      return checked instanceof Promise ? checked.then(headCheck) : headCheck(checked)
    },
    serve(request, body, pass) {
      if (pass !== undefined) return admitted(pass, request, body)
      const checked = admit(fields(request))
      return checked instanceof Promise ? checked.then((c) => admitted(c, request, body)) : admitted(checked, request, body)
    },
    failed(error) {
      return { status: 500, body: failedRequestBody(logger, error), close: true }
    },
    closing,
  }
}
