import { type SQL, sql } from 'drizzle-orm'
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core'
import { toArrayLiteral } from '../../columns.js'

// Bulk insert as one statement with one array parameter per column:
//   insert into t (a, b) select * from unnest($1::bytea[], $2::bigint[]) on conflict (…) do nothing
// drizzle's insert builder costs ~100 ms per 1,000 rows to build (measured); this builds a
// constant-size statement. Each column's values become one array literal (columns.ts).

/** A column and how to read its domain value from an input row. */
export type UnnestField<T> = readonly [column: PgColumn, value: (row: T) => unknown]

/**
 * `insert into table (columns) select * from unnest(…) on conflict (conflict) do nothing`,
 * one array per field, read from `rows` (which may be empty).
 */
export function unnestInsert<T>(
  table: PgTable,
  fields: readonly UnnestField<T>[],
  rows: readonly T[],
  conflict: readonly PgColumn[],
): SQL {
  const names = sql.join(
    fields.map(([column]) => sql.identifier(column.name)),
    sql`, `,
  )
  const arrays = sql.join(
    fields.map(
      ([column, value]) => sql`${toArrayLiteral(column.getSQLType(), rows.map(value))}::${sql.raw(column.getSQLType())}[]`,
    ),
    sql`, `,
  )
  const target = sql.join(
    conflict.map((column) => sql.identifier(column.name)),
    sql`, `,
  )
  return sql`insert into ${table} (${names}) select * from unnest(${arrays}) on conflict (${target}) do nothing`
}
