import { defineConfig } from 'drizzle-kit'

// `npm run db:generate` diffs the schema (the chain index's and the accounts' files, one database)
// against the last snapshot in migrations/meta and writes the next migration. Review and commit it;
// never edit applied ones.
export default defineConfig({
  dialect: 'postgresql',
  schema: ['./packages/db/src/chain/schema.ts', './packages/db/src/accounts/schema.ts'],
  out: './migrations',
})
