/**
 * Postgres for the tests of the Postgres records. Every call gets a database of its own,
 * dropped by `cleanup()`, so test files never share state:
 * - on the server of DATABASE_URL when it is set (.ci/run sets it; tests/helpers/setup.ts
 *   keeps it out of process.env as PERPSIM_TEST_DATABASE_URL), a new `perpsim_t_<random>`;
 * - otherwise on a private cluster started from the machine's binaries (found with
 *   `dpkg -S '*\/bin/initdb'`, run as the `postgres` user through runuser: initdb refuses
 *   root) in a temp dir on a free loopback port, stopped and removed by `cleanup()`;
 * - otherwise none, and the caller skips with the printed reason ("skipped: …", the
 *   convention of tests/helpers/setup.ts that .ci/run repeats and fails on).
 */
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { dirname, join } from 'node:path'
import { Client } from 'pg'

export interface TestPostgres {
  /** postgres://… of this test's own, empty database */
  url: string
  /** one more empty database on the same server, dropped by `cleanup()` too */
  another(): Promise<string>
  cleanup(): Promise<void>
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}

/** SELECT 1 on `url` within `timeoutMs`; the error message when it did not answer. */
async function probe(url: string, timeoutMs: number): Promise<string | null> {
  const deadline = Date.now() + timeoutMs
  let last = 'no answer'
  while (Date.now() < deadline) {
    const c = new Client({ connectionString: url, connectionTimeoutMillis: 1000 })
    c.on('error', () => {})
    try {
      await c.connect()
      await c.query('SELECT 1')
      return null
    } catch (e) {
      last = e instanceof Error ? e.message : String(e)
      await Bun.sleep(100)
    } finally {
      await c.end().catch(() => {})
    }
  }
  return last
}

async function admin<T>(url: string, f: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: url })
  c.on('error', () => {})
  await c.connect()
  try {
    return await f(c)
  } finally {
    await c.end().catch(() => {})
  }
}

/** A fresh database on the server of `serverUrl`; `drop()` removes it (closing what still uses it). */
export async function createTestDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `perpsim_t_${Math.random().toString(36).slice(2, 10)}`
  await admin(serverUrl, c => c.query(`CREATE DATABASE ${name}`))
  return {
    url: withDatabase(serverUrl, name),
    drop: () => admin(serverUrl, c => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
  }
}

/** The directory of the newest initdb the packages installed (Debian keeps them off PATH); null when none is. */
export function postgresBinDir(): string | null {
  const p = Bun.spawnSync(['dpkg', '-S', '*/bin/initdb'], { stdout: 'pipe', stderr: 'ignore' })
  if (p.exitCode !== 0) return null
  const paths = p.stdout
    .toString()
    .split('\n')
    .map(l => l.split(': ')[1]?.trim())
    .filter((x): x is string => !!x && existsSync(x))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
  return paths.length ? dirname(paths[paths.length - 1]!) : null
}

/**
 * A private cluster on a free loopback port (trust auth, fsync off: tests only), or the
 * reason there is none. `stop()` stops it and removes its directory.
 */
export async function privatePostgres(): Promise<{ url: string; stop(): Promise<void> } | string> {
  const bin = postgresBinDir()
  if (!bin) return "no Postgres binaries (dpkg -S '*/bin/initdb' finds none): set DATABASE_URL or install postgresql (README \"Tests\")"
  const root = userInfo().uid === 0
  if (root && !existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser')) return 'running as root without runuser (initdb refuses root)'
  // as root, initdb and postgres run as the postgres user the package created
  const as = (cmd: string[]) => (root ? ['runuser', '-u', 'postgres', '--', ...cmd] : cmd)
  const dir = mkdtempSync(join(tmpdir(), 'perpsim-pg-'))
  chmodSync(dir, 0o755)
  const data = join(dir, 'data')
  const sock = join(dir, 'sock')
  mkdirSync(sock)
  if (root) {
    const id = Bun.spawnSync(['id', '-u', 'postgres'], { stdout: 'pipe' })
    const gid = Bun.spawnSync(['id', '-g', 'postgres'], { stdout: 'pipe' })
    if (id.exitCode !== 0) return 'running as root and there is no postgres user for initdb'
    chownSync(dir, Number(id.stdout.toString()), Number(gid.stdout.toString()))
    chownSync(sock, Number(id.stdout.toString()), Number(gid.stdout.toString()))
  }
  const port = await freePort()
  const stopNow = () => {
    if (existsSync(join(data, 'postmaster.pid'))) Bun.spawnSync(as([join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', '-w', 'stop']), { stdout: 'ignore', stderr: 'ignore' })
    rmSync(dir, { recursive: true, force: true })
  }
  // pg_ctl daemonizes the server: a test run that ends without cleanup() (a hook timed out,
  // a crash) must not leave it running
  process.once('exit', stopNow)
  const stop = async () => {
    process.off('exit', stopNow)
    stopNow()
  }
  const init = Bun.spawnSync(as([join(bin, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']), { stdout: 'ignore', stderr: 'pipe' })
  if (init.exitCode !== 0) {
    await stop()
    return `initdb failed: ${init.stderr.toString().trim().split('\n').pop()}`
  }
  const opts = `-c listen_addresses=127.0.0.1 -p ${port} -k ${sock} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`
  const start = Bun.spawnSync(as([join(bin, 'pg_ctl'), '-D', data, '-l', join(dir, 'pg.log'), '-w', '-t', '30', 'start', '-o', opts]), { stdout: 'ignore', stderr: 'pipe' })
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  if (start.exitCode !== 0 || (await probe(url, 5000)) !== null) {
    await stop()
    return `a private Postgres cluster (${bin}) did not start`
  }
  return { url, stop }
}

/** Postgres for one test file (a database of its own), or null after printing why there is none ("skipped: … (on Postgres)"). */
export async function testPostgres(what: string): Promise<TestPostgres | null> {
  const skip = (why: string) => {
    process.stderr.write(`skipped: ${what} (on Postgres) - ${why}\n`)
    return null
  }
  // DATABASE_URL as the run was given it (tests/helpers/setup.ts keeps it out of process.env)
  const given = process.env.PERPSIM_TEST_DATABASE_URL || ''
  let server = given
  let stop = async () => {}
  if (given) {
    const err = await probe(given, 3000)
    if (err) return skip(`DATABASE_URL=${given} does not answer: ${err}`)
  } else {
    const own = await privatePostgres()
    if (typeof own === 'string') return skip(own)
    server = own.url
    stop = own.stop
  }
  const dbs: { url: string; drop(): Promise<void> }[] = []
  try {
    dbs.push(await createTestDatabase(server))
  } catch (e) {
    await stop()
    return skip(`CREATE DATABASE failed: ${e instanceof Error ? e.message : String(e)}`)
  }
  return {
    url: dbs[0]!.url,
    async another() {
      const db = await createTestDatabase(server)
      dbs.push(db)
      return db.url
    },
    async cleanup() {
      for (const db of dbs) await db.drop().catch(() => {})
      await stop()
    },
  }
}
