/**
 * Postgres through drizzle-orm's node-postgres driver (`pg` Pool), for DATABASE_URL=postgres://…
 * (../shared/SCALE-OUT.md). The schema is db/pg-schema.ts, the mirror of db/schema.ts, and
 * its migrations (db/pg-migrations) are applied at open, as `openDb` does for SQLite.
 */
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import { Pool, type PoolClient, type PoolConfig } from 'pg'
import * as pgSchema from '../db/pg-schema'
import { PG_MIGRATIONS_DIR } from './paths'

export type PgDb = NodePgDatabase<typeof pgSchema> & { $client: Pool }

/**
 * Every process of a fleet opens the database at start: the first to take this session lock
 * migrates, the others wait for it and then find nothing to do (two migrators at once would
 * both try to create the same tables). A fixed key, the same on every node.
 */
const MIGRATION_LOCK = 2_702_027_001

// where DATABASE_URL is read and checked (src/config.ts)
export { isPostgresUrl, redactUrl } from './config'

/** Apply db/pg-migrations to the database behind `pool` (under the migration lock); returns how many were new. */
export async function migratePg(pool: Pool): Promise<number> {
  const client = await pool.connect()
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
    try {
      const db = drizzle({ client })
      const before = await appliedCount(client)
      await migrate(db, { migrationsFolder: PG_MIGRATIONS_DIR })
      return (await appliedCount(client)) - before
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK])
    }
  } finally {
    client.release()
  }
}

async function appliedCount(client: PoolClient): Promise<number> {
  const t = await client.query<{ t: string | null }>(`SELECT to_regclass('drizzle.__drizzle_migrations')::text AS t`)
  if (!t.rows[0]?.t) return 0
  const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations')
  return rows[0]?.n ?? 0
}

/**
 * Open the Postgres database at `url` and migrate it. The pool keeps up to `max` connections
 * (pg's default 10); close it with `db.$client.end()`.
 */
export async function openPgDb(url: string, opts: { max?: number } = {}): Promise<PgDb> {
  const config: PoolConfig = { connectionString: url, max: opts.max ?? 10 }
  const pool = new Pool(config)
  // an idle connection the server drops (restart, idle timeout) emits 'error' on the pool;
  // unhandled, that would end the process: the next query opens a new connection instead
  pool.on('error', () => {})
  try {
    await migratePg(pool)
  } catch (e) {
    await pool.end()
    throw e
  }
  return drizzle({ client: pool, schema: pgSchema }) as PgDb
}

export { pgSchema }
