/**
 * `perpsim db migrate` and `perpsim db copy` (src/db-admin.ts does the work):
 *   db migrate [--database sqlite:<path>|postgres://…]
 *     the configured database by default (configuredDatabase, src/config.ts): DATABASE_URL's
 *     Postgres, or the SQLite file DATA_DIR/perpsim.sqlite when it is unset
 *   db copy [--from sqlite:<path>] [--to postgres://…] [--allow-non-empty]
 *     from the SQLite file (default DATA_DIR/perpsim.sqlite) to Postgres (default DATABASE_URL)
 */
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { configuredDatabase, type Config } from './config'
import { CopyError, copySqliteToPostgres, formatCopyReport, migratePostgres, migrateSqlite, sqlitePathOf, type MigrateReport } from './db-admin'
import { isPostgresUrl } from './db-postgres'

function describeMigrate(r: MigrateReport): string {
  return r.applied === 0 ? `${r.database}: up to date (${r.total} migrations)` : `${r.database}: applied ${r.applied} migrations (${r.total} in all)`
}

export async function dbCommand(config: Config, args: string[], usage: (message: string) => Error): Promise<number> {
  const [sub, ...rest] = args
  try {
    if (sub === 'migrate') {
      const { values } = parseArgs({ args: rest, options: { database: { type: 'string' } } })
      const target = values.database ?? configuredDatabase(config)
      const report = isPostgresUrl(target) ? await migratePostgres(target) : migrateSqlite(sqlitePathOf(target))
      console.log(describeMigrate(report))
      return 0
    }
    if (sub === 'copy') {
      const { values } = parseArgs({ args: rest, options: { from: { type: 'string' }, to: { type: 'string' }, 'allow-non-empty': { type: 'boolean' } } })
      const from = values.from ?? `sqlite:${join(config.dataDir, 'perpsim.sqlite')}`
      if (isPostgresUrl(from)) throw usage(`--from ${from}: the copy goes from a SQLite file (sqlite:<path>) to Postgres`)
      const to = values.to ?? (isPostgresUrl(process.env.DATABASE_URL ?? '') ? process.env.DATABASE_URL! : '')
      if (!to) throw usage('db copy needs --to postgres://user@host:port/database (or DATABASE_URL set to one)')
      if (!isPostgresUrl(to)) throw usage(`--to ${to}: expected postgres://user@host:port/database`)
      const report = await copySqliteToPostgres({ from, to, allowNonEmpty: values['allow-non-empty'], log: line => process.stderr.write(`${line}\n`) })
      console.log(formatCopyReport(report))
      return 0
    }
  } catch (e) {
    if (e instanceof CopyError) {
      if (e.usage) throw usage(e.message)
      process.stderr.write(`perpsim db ${sub}: ${e.message}\n`)
      return 1
    }
    throw e
  }
  throw usage(`unknown command: db ${sub ?? ''}`.trim())
}
