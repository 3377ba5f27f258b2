import { defineConfig } from 'drizzle-kit'

// `npm run db:generate` diffs packages/db/src/schema.ts against the last snapshot in
// migrations/meta and writes the next migration. Review and commit it; never edit applied ones.
export default defineConfig({
  dialect: 'postgresql',
  schema: './packages/db/src/schema.ts',
  out: './migrations',
})
