import { uncleJsonParts } from '@uncle-rpc/chain'

/** A stored column as the answer's writer needs it: its name, and whether it is an int8/int4 or a numeric. */
export type AnswerColumn = { name: string; getSQLType(): string }

// Note: a numeric quantity past int8's range (no real header has one) is written `#<decimal>` and
// converted by the reader: to_hex takes int8 only, and '#' is in no other value of the text.
const int8Limit = '9223372036854775808'

/** The marker the reader converts: `"#<decimal>"` for a quantity to_hex could not write. */
export const bigQuantityPattern = /"#(\d+)"/g

/** The key the `omit` form leaves out, as the stored `null` form writes it (never the first key). */
export const totalDifficultyNullText = ',"totalDifficulty":null'

/**
 * rpcUncleJson's text (`totalDifficulty: null`) written by Postgres from an uncle's columns, as an
 * immutable expression (a generated column's must be: so no concat_ws, which is only stable).
 * Every piece starts with its comma and the first is cut off; a piece of an absent optional field
 * is NULL (`||` keeps NULL), so coalesce leaves it out with its comma. Keys, order and value forms
 * come from uncleJsonParts, so both writers share one description of the wire.
 */
export function uncleAnswerSql(columnOf: (field: string) => AnswerColumn): string {
  const pieces = uncleJsonParts({ totalDifficulty: 'null' }).map((part) => {
    const key = `',"${part.key}":`
    if ('json' in part) return `${key}${part.json}'`
    const column = columnOf(part.field)
    const ref = `"${column.name}"`
    const type = column.getSQLType()
    let value: string
    if (!part.quantity) value = `'"0x' || encode(${ref}, 'hex') || '"'`
    else if (type === 'bigint' || type === 'integer') value = `'"0x' || to_hex(${ref}) || '"'`
    else value = `'"' || case when ${ref} < ${int8Limit} then '0x' || to_hex(${ref}::int8) else '#' || ${ref}::text end || '"'`
    const piece = `${key}' || ${value}`
    return part.optional ? `coalesce(${piece}, '')` : piece
  })
  return `'{' || substr(${pieces.join(' || ')}, 2) || '}'`
}
