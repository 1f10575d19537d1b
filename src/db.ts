/** SQLite through drizzle-orm (bun:sqlite), WAL on, migrations applied at open. */
import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import { migrate } from 'drizzle-orm/bun-sqlite/migrator'
import * as schema from '../db/schema'
import { MIGRATIONS_DIR } from './paths'

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database }

/** Open (creating if needed) the database at `path` (':memory:' for tests) and migrate it. */
export function openDb(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const sqlite = new Database(path, { create: true, strict: true })
  sqlite.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;')
  // INSERT OR REPLACE deletes the row it replaces; only with recursive triggers on does that
  // deletion meet the append-only DELETE triggers of published records
  sqlite.exec('PRAGMA recursive_triggers = ON;')
  const db = drizzle({ client: sqlite, schema })
  migrate(db, { migrationsFolder: MIGRATIONS_DIR })
  return db as Db
}

export { schema }
