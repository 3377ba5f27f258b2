import type { Hex } from '@uncle-rpc/chain'
import { expect, test } from 'vitest'
import { createDb } from './client.js'
import { getUncles } from './chain/queries/uncles.js'
import { type OpenTestDatabase, useTestDatabase } from './testing.js'

let database: OpenTestDatabase
useTestDatabase({ max: 1 }, (opened) => {
  database = opened
})

test('behavior: on a pool with genericPlans a prepared statement is planned once per connection, and options of the URL are kept', async () => {
  const keys = Array.from({ length: 8 }, (_, i) => ({ blockHash: `0x${'00'.repeat(31)}0${i}` as Hex, index: 0 }))
  const url = new URL(database.url)
  url.searchParams.set('options', '-c application_name=generic-plans-test')
  const run = async (genericPlans: boolean) => {
    const single = createDb({ url: url.toString(), max: 1, genericPlans })
    try {
      for (let i = 0; i < 8; i++) await getUncles(single.db, { network: 'mainnet', keys })
      const { rows } = await single.pool.query<{ generic: string; custom: string }>(
        `select generic_plans as generic, custom_plans as custom from pg_prepared_statements where name = 'uncle_rpc_get_uncles'`,
      )
      const { rows: names } = await single.pool.query<{ name: string }>('select current_setting($1) as name', ['application_name'])
      return { name: names[0]?.name, plans: rows.map((r) => ({ generic: Number(r.generic), custom: Number(r.custom) })) }
    } finally {
      await single.close()
    }
  }
  expect(await run(true)).toEqual({ name: 'generic-plans-test', plans: [{ generic: 8, custom: 0 }] })
  // Without it, the first five executions at least are planned each (on the mainnet sample, with eight keys: every one).
  const plain = await run(false)
  expect(plain.name).toBe('generic-plans-test')
  expect(plain.plans[0]?.custom).toBeGreaterThanOrEqual(5)
})
