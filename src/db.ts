/**
 * The records' database, one interface for both dialects (docs/architecture.md "The
 * records' database"): SQLite through bun:sqlite (the default: a file, WAL on) or Postgres
 * through node-postgres (`DATABASE_URL=postgres://…`). Every query is awaited; the records
 * build them with `db.orm` over the dialect's tables `db.t` (the same TS keys and SQL names
 * in db/schema.ts and db/pg-schema.ts) and open transactions with `db.tx`.
 *
 * Typing: `orm` and `t` are typed as the SQLite flavour (drizzle's async SQLite database
 * over db/schema.ts). On Postgres they are drizzle's node-postgres database over the
 * pg-core mirror, whose columns the parity test keeps equal; the records use only what both
 * query builders share (awaited select / insert / update / delete, onConflictDoNothing /
 * onConflictDoUpdate, returning, the aggregate helpers `count`, `max`, `min`, which decode
 * Postgres' string counts and bigints to numbers), and `dialect` where the SQL differs.
 *
 * Transactions on SQLite: drizzle's bun-sqlite `transaction()` is synchronous (an async
 * callback would see its COMMIT before its awaited statements ran), so the SQLite side is
 * drizzle's async SQLite driver (sqlite-proxy) over the same bun:sqlite connection, and
 * `tx` serializes: one transaction at a time per process (BEGIN IMMEDIATE … COMMIT, the
 * callback awaited inside), and while it is open every other statement of the process
 * waits for its end instead of slipping into it (an AsyncLocalStorage marks the statements
 * of the open transaction). With no transaction open a statement runs at once, so reads
 * and one-statement writes pay nothing. Other processes on the same file are kept apart by
 * SQLite's own lock (IMMEDIATE, busy_timeout).
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { drizzle as drizzleBunSqlite } from 'drizzle-orm/bun-sqlite'
import { migrate as migrateBunSqlite } from 'drizzle-orm/bun-sqlite/migrator'
import { drizzle as drizzleProxy, type SqliteRemoteDatabase } from 'drizzle-orm/sqlite-proxy'
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core'
import { sql, type SQL } from 'drizzle-orm'
import * as schema from '../db/schema'
import { configuredDatabase } from './config'
import { MIGRATIONS_DIR } from './paths'

export type Dialect = 'sqlite' | 'postgres'
/** The query builder (typed as the SQLite one; see above). */
export type Orm = SqliteRemoteDatabase<typeof schema>
/** The dialect's tables under the keys of db/schema.ts. */
export type Tables = typeof schema

/** What a query needs: the database outside a transaction, or an open transaction. */
export interface Queryable {
  readonly dialect: Dialect
  readonly orm: Orm
  readonly t: Tables
  /**
   * Run `fn` once what this handle writes is committed: at once outside a transaction, after
   * the COMMIT inside one (never after a ROLLBACK). For wake-ups of readers.
   */
  afterCommit(fn: () => void): void
  /** A raw statement's rows as objects (counts and bigints as Postgres sends them: cast in SQL or in code). */
  rows<T = Record<string, unknown>>(query: SQL): Promise<T[]>
}

export interface Db extends Queryable {
  /**
   * One transaction: committed when `fn` resolves, rolled back when it throws. On SQLite the
   * process's statements outside it wait until it ends (see above); on Postgres it holds a
   * pool connection. A transaction is never opened inside another.
   */
  tx<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>
  close(): Promise<void>
}

/**
 * Hold a lock named `key` until the transaction `tx` ends (Postgres: a transaction-scoped
 * advisory lock on the key's 64-bit hash, released at COMMIT or ROLLBACK). Nothing on
 * SQLite, where an IMMEDIATE transaction already holds the one write lock.
 */
export async function lockUntilCommit(tx: Queryable, key: string): Promise<void> {
  if (tx.dialect === 'postgres') await tx.rows(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`)
}

/** The larger of two values in SQL: SQLite's two-argument max(), Postgres' greatest(). */
export const greatest = (q: Queryable, a: unknown, b: unknown): SQL => (q.dialect === 'postgres' ? sql`greatest(${a}, ${b})` : sql`max(${a}, ${b})`)

/** A promise-chain lock: one holder at a time, in order of asking. */
class Gate {
  private tail: Promise<void> = Promise.resolve()
  /** set while a holder runs */
  busy: Promise<void> | null = null

  async hold<T>(fn: () => Promise<T>): Promise<T> {
    const prev = this.tail
    let release!: () => void
    const mine = new Promise<void>(r => (release = r))
    this.tail = prev.then(() => mine)
    await prev
    this.busy = mine
    try {
      return await fn()
    } finally {
      this.busy = null
      release()
    }
  }
}

type Method = 'run' | 'all' | 'values' | 'get'

/** The SQLite database at `path` (':memory:' for tests), migrated, WAL on. Synchronous: SQLite opens at once. */
export function openDb(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const client = new Database(path, { create: true, strict: true })
  // busy_timeout first: switching to WAL needs a lock too, and without the timeout a process
  // opening while another still closes the file fails at once ("database is locked")
  client.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;')
  // a deletion by INSERT OR REPLACE meets the append-only DELETE triggers only with recursive
  // triggers on (the records write none, but a hand-written statement could)
  client.exec('PRAGMA recursive_triggers = ON;')
  migrateBunSqlite(drizzleBunSqlite({ client, schema }), { migrationsFolder: MIGRATIONS_DIR })

  const inTx = new AsyncLocalStorage<symbol>()
  const gate = new Gate()
  let openTx: symbol | null = null
  const exec = (sqlText: string, params: unknown[], method: Method): { rows: any[] } => {
    // query() caches the prepared statement by its text
    const stmt = client.query(sqlText)
    const p = params as never[]
    if (method === 'run') {
      stmt.run(...p)
      return { rows: [] }
    }
    if (method === 'get') return { rows: stmt.values(...p)[0] }
    return { rows: stmt.values(...p) }
  }
  /** a statement runs at once unless another caller's transaction is open: then after it */
  const statement = async <T>(run: () => T): Promise<T> => {
    while (openTx !== null && inTx.getStore() !== openTx) await gate.busy
    return run()
  }
  const orm = drizzleProxy<typeof schema>((sqlText, params, method) => statement(() => exec(sqlText, params, method)), { schema })
  const dialect = new SQLiteAsyncDialect()
  const rows = <T>(query: SQL) =>
    statement(() => {
      const q = dialect.sqlToQuery(query)
      return client.query(q.sql).all(...(q.params as never[])) as T[]
    })

  const db: Db = {
    dialect: 'sqlite',
    orm,
    t: schema,
    afterCommit: fn => fn(),
    rows,
    tx: fn => {
      // inside the open transaction a second one would wait for the first's end for ever
      if (openTx !== null && inTx.getStore() === openTx) return Promise.reject(new Error('a transaction is never opened inside another: pass the open one (tx) on'))
      return gate.hold(async () => {
        // (a statement let through before this ran to its end synchronously: none is midway)
        const token = Symbol('tx')
        openTx = token
        const pending: (() => void)[] = []
        try {
          const out = await inTx.run(token, () =>
            orm.transaction(t => fn({ dialect: 'sqlite', orm: t as unknown as Orm, t: schema, rows, afterCommit: f => void pending.push(f) }), { behavior: 'immediate' }),
          )
          openTx = null
          // outside the transaction's context, so what they start is not part of it
          inTx.exit(() => pending.forEach(f => f()))
          return out
        } finally {
          openTx = null
        }
      })
    },
    close: async () => {
      await gate.hold(async () => client.close())
    },
  }
  return db
}

/**
 * The database a URL names: Postgres for `postgres://` or `postgresql://`, else the SQLite
 * file at that path. Postgres is loaded only then (src/db-postgres.ts).
 */
export async function openDatabase(urlOrPath: string): Promise<Db> {
  if (/^postgres(ql)?:\/\//i.test(urlOrPath)) return openPostgres(urlOrPath)
  return openDb(urlOrPath)
}

/**
 * Postgres at `url` (src/db-postgres.ts: a node-postgres pool over db/pg-schema.ts, migrated
 * at open), behind the same interface: `orm` is drizzle's node-postgres database over the
 * pg-core tables, `tx` drizzle's transaction on one pool connection.
 */
async function openPostgres(url: string): Promise<Db> {
  const { openPgDb, pgSchema } = await import('./db-postgres')
  const pg = await openPgDb(url)
  type Exec = { execute(q: SQL): Promise<{ rows: unknown[] }> }
  const handle = (orm: unknown, afterCommit: (fn: () => void) => void): Queryable => ({
    dialect: 'postgres',
    orm: orm as Orm,
    t: pgSchema as unknown as Tables,
    afterCommit,
    rows: async <T>(query: SQL) => (await (orm as Exec).execute(query)).rows as T[],
  })
  const outside = handle(pg, fn => fn())
  return {
    ...outside,
    tx: async fn => {
      const pending: (() => void)[] = []
      const out = await pg.transaction(t => fn(handle(t, f => void pending.push(f))))
      pending.forEach(f => f())
      return out
    },
    close: () => pg.$client.end(),
  }
}

/**
 * The records' database of this installation (`configuredDatabase`, src/config.ts): Postgres
 * for DATABASE_URL=postgres://…, the SQLite file DATA_DIR/perpsim.sqlite when it is unset; any
 * other DATABASE_URL is refused (ConfigError), never replaced by the SQLite file.
 */
export function openConfiguredDb(config: { dataDir: string }, env: Record<string, string | undefined> = process.env): Promise<Db> {
  const target = configuredDatabase(config, env)
  return openDatabase(target.startsWith('sqlite:') ? target.slice('sqlite:'.length) : target)
}

export { schema }
