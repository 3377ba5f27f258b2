// The soak's JSON-RPC calls and what a right answer to each is: a known uncle (its header, by the
// hash it was indexed under), an unknown block hash (null) and a batch of both. Pure: bodies and
// checks from a seeded random source and the current list of known uncles.

export type KnownUncle = { blockHash: string; index: string; hash: string }
export type CallKind = 'known' | 'unknown' | 'batch'
/** A request body and the check of its answer: undefined when right, else why it is wrong. */
export type Call = { kind: CallKind; body: string; check: (text: string) => string | undefined }

/** Batch size of the batch calls: 6 known uncles and 4 unknown hashes. */
export const batchSize = 10

type Entry = { id: number; method: string; params: [string, string]; expect: string | null }
type Answer = { id?: unknown; result?: { hash?: unknown } | null; error?: { code?: unknown; message?: unknown } }

/** The start of a failure reason that is the rpc's documented answer when its database cannot answer (README, Failover forwarding). */
export const unavailablePrefix = 'unavailable:'

function judge(answer: Answer, expect: string | null): string | undefined {
  if (answer.error !== undefined) {
    const documented = answer.error.code === -32603 && typeof answer.error.message === 'string' && answer.error.message.startsWith('the index cannot answer right now')
    return documented ? `${unavailablePrefix} rpc -32603 index cannot answer` : `rpc ${String(answer.error.code)}`
  }
  if (answer.result === undefined) return 'no result'
  if (expect === null) return answer.result === null ? undefined : 'wrong: not null'
  if (answer.result === null) return 'wrong: null'
  return answer.result.hash === expect ? undefined : 'wrong: other uncle'
}

const entryBody = (e: Entry) => `{"jsonrpc":"2.0","id":${e.id},"method":"${e.method}","params":["${e.params[0]}","${e.params[1]}"]}`

/** Makes the calls: kind by share (known 50%, unknown 30%, batch 20%), uncles picked at random. */
export function createCalls(random: () => number, known: () => readonly KnownUncle[]) {
  const hash = () => {
    let hex = '0x'
    for (let i = 0; i < 8; i++) hex += Math.floor(random() * 2 ** 32).toString(16).padStart(8, '0')
    return hex
  }
  const knownEntry = (id: number): Entry => {
    const list = known()
    const uncle = list[Math.floor(random() * list.length)]!
    return { id, method: 'eth_getUncleByBlockHashAndIndex', params: [uncle.blockHash, uncle.index], expect: uncle.hash }
  }
  const unknownEntry = (id: number): Entry => ({ id, method: 'eth_getUncleByBlockHashAndIndex', params: [hash(), '0x0'], expect: null })
  const single = (kind: CallKind, entry: Entry): Call => ({
    kind,
    body: entryBody(entry),
    check(text) {
      let answer: Answer
      try {
        answer = JSON.parse(text) as Answer
      } catch {
        return 'not JSON'
      }
      if (Array.isArray(answer)) return 'wrong: array'
      if (answer.id !== entry.id) return 'wrong: id'
      return judge(answer, entry.expect)
    },
  })
  return {
    /** The call with sequence number `n`: its JSON-RPC id is n × batchSize (a batch's entries: that and the next ones), so ids never repeat. */
    make(n: number): Call {
      const r = random()
      const id = n * batchSize
      // Note: before any uncle is known, every call is an unknown hash.
      if (known().length === 0 || (r >= 0.5 && r < 0.8)) return single('unknown', unknownEntry(id))
      if (r < 0.5) return single('known', knownEntry(id))
      const entries = Array.from({ length: batchSize }, (_, i) => (i < 6 ? knownEntry(id + i) : unknownEntry(id + i)))
      return {
        kind: 'batch',
        body: `[${entries.map(entryBody).join(',')}]`,
        check(text) {
          let answers: Answer[]
          try {
            answers = JSON.parse(text) as Answer[]
          } catch {
            return 'not JSON'
          }
          if (!Array.isArray(answers)) return judge(answers as Answer, null) ?? 'wrong: not an array'
          if (answers.length !== entries.length) return 'wrong: batch length'
          const byId = new Map(answers.map((a) => [a.id, a]))
          const wrong = entries.map((entry) => {
            const answer = byId.get(entry.id)
            return answer === undefined ? 'wrong: batch id' : judge(answer, entry.expect)
          })
          // Note: a wrong entry outweighs an entry the rpc documented it could not answer.
          return wrong.find((w) => w !== undefined && !w.startsWith(unavailablePrefix)) ?? wrong.find((w) => w !== undefined)
        },
      }
    },
  }
}
