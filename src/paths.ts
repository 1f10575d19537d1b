/**
 * Where the project's own files are: next to the sources in a checkout, or inside the
 * single binary built by `bun build --compile` (where import.meta.dir is /$bunfs/root).
 */
import { join } from 'node:path'

export const PROJECT_ROOT: string = Bun.isStandaloneExecutable ? import.meta.dir : join(import.meta.dir, '..')
export const MIGRATIONS_DIR = join(PROJECT_ROOT, 'db', 'migrations')
/** the Postgres mirror's migrations (db/pg-schema.ts, drizzle.pg.config.ts) */
export const PG_MIGRATIONS_DIR = join(PROJECT_ROOT, 'db', 'pg-migrations')
export const ASSETS_DIR = join(PROJECT_ROOT, 'assets')
