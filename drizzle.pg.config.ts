import { defineConfig } from 'drizzle-kit'

/** The Postgres mirror (db/pg-schema.ts) and its own migrations: `drizzle-kit generate --config drizzle.pg.config.ts`. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/pg-schema.ts',
  out: './db/pg-migrations',
})
