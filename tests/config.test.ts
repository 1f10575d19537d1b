import { describe, expect, test } from 'bun:test'
import { ConfigError, configuredDatabase, loadConfig } from '../src/config'

describe('configuration', () => {
  test('defaults', () => {
    const c = loadConfig({})
    expect(c.port).toBe(8000)
    expect(c.offline).toBe(false)
    expect(c.demo).toBeNull()
    expect(c.dataDir.endsWith('/data')).toBe(true)
  })

  test('each bad value names its variable and what it accepts', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ PORT: '70000' }, /^PORT=.*integer from 0 to 65535/],
      [{ OFFLINE: 'maybe' }, /^OFFLINE=.*1\/0/],
      [{ DEMO: '2' }, /^DEMO=/],
      [{ JOBS: 'later' }, /^JOBS=.*1\/0/],
      [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL=.*one of debug, info/],
      [{ WORKERS: '0' }, /^WORKERS=/],
      [{ COINGECKO_URL: 'ftp://x' }, /^COINGECKO_URL=.*http\(s\) URL/],
    ]
    for (const [env, msg] of cases) {
      expect(() => loadConfig(env)).toThrow(ConfigError)
      expect(() => loadConfig(env)).toThrow(msg)
    }
  })

  test('JOBS: the scheduled jobs run unless JOBS=0', () => {
    expect(loadConfig({}).jobs).toBe(true)
    expect(loadConfig({ JOBS: '1' }).jobs).toBe(true)
    expect(loadConfig({ JOBS: '0' }).jobs).toBe(false)
  })

  test('OFFLINE and DEMO accept 1/0', () => {
    const c = loadConfig({ OFFLINE: '1', DEMO: '0' })
    expect(c.offline).toBe(true)
    expect(c.demo).toBe(false)
  })
})

describe('past one machine (REDIS_URL)', () => {
  test('without REDIS_URL the process keeps its own pool and limiter; with it, the URL, prefix and queue timings', () => {
    expect(loadConfig({}).redis).toEqual({ url: null, prefix: 'perpsim', taskDeadlineMs: 300_000, lockMs: 30_000, stalledMs: 15_000 })
    const c = loadConfig({ REDIS_URL: 'redis://:secret@10.0.0.5:6380/2', REDIS_PREFIX: 'fleet-a', QUEUE_TASK_DEADLINE_MS: '60000', QUEUE_LOCK_MS: '10000', QUEUE_STALLED_MS: '5000' })
    expect(c.redis).toEqual({ url: 'redis://:secret@10.0.0.5:6380/2', prefix: 'fleet-a', taskDeadlineMs: 60_000, lockMs: 10_000, stalledMs: 5_000 })
    expect(loadConfig({ REDIS_URL: 'rediss://cache.example.org' }).redis.url).toBe('rediss://cache.example.org')
  })

  test('a bad REDIS_URL or REDIS_PREFIX stops start-up naming the variable and the form it takes', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ REDIS_URL: 'localhost:6379' }, /^REDIS_URL="localhost:6379": expected redis:\/\/\[user:password@\]host\[:port\]\[\/db\] or rediss:\/\//],
      [{ REDIS_URL: 'http://127.0.0.1:6379' }, /^REDIS_URL="http:\/\/127.0.0.1:6379": expected redis:\/\//],
      [{ REDIS_URL: 'redis://127.0.0.1:6379/queue' }, /^REDIS_URL=.*the database is a number/],
      [{ REDIS_URL: 'redis://' }, /^REDIS_URL="redis:\/\/": expected/],
      [{ REDIS_PREFIX: 'a b' }, /^REDIS_PREFIX="a b": expected 1 to 64 letters/],
      [{ QUEUE_LOCK_MS: '10' }, /^QUEUE_LOCK_MS=.*integer from 1000/],
    ]
    for (const [env, msg] of cases) {
      expect(() => loadConfig(env)).toThrow(ConfigError)
      expect(() => loadConfig(env)).toThrow(msg)
    }
  })

  test('DATABASE_URL: postgres:// or unset (the SQLite file); anything else stops start-up, never a fall back to SQLite', () => {
    expect(configuredDatabase({ dataDir: '/d' }, {})).toBe('sqlite:/d/perpsim.sqlite')
    expect(configuredDatabase({ dataDir: '/d' }, { DATABASE_URL: '' })).toBe('sqlite:/d/perpsim.sqlite')
    expect(configuredDatabase({ dataDir: '/d' }, { DATABASE_URL: 'postgres://u@h:5432/db' })).toBe('postgres://u@h:5432/db')
    expect(configuredDatabase({ dataDir: '/d' }, { DATABASE_URL: 'postgresql://u@h/db' })).toBe('postgresql://u@h/db')
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h:5432/db' }).port).toBe(8000)
    const cases: [Record<string, string>, RegExp][] = [
      [{ DATABASE_URL: 'mysql://h/db' }, /^DATABASE_URL="mysql:\/\/h\/db": expected postgres:\/\/user@host:port\/database \(or postgresql:\/\/\); unset, the records are the SQLite file DATA_DIR\/perpsim\.sqlite$/],
      [{ DATABASE_URL: 'postgress://u@h/db' }, /^DATABASE_URL="postgress:\/\/u@h\/db": expected postgres:\/\//],
      [{ DATABASE_URL: '/var/lib/perpsim.sqlite' }, /^DATABASE_URL="\/var\/lib\/perpsim\.sqlite": expected postgres:\/\//],
      // the password is never printed
      [{ DATABASE_URL: 'mysql://u:secret@h/db' }, /^DATABASE_URL="mysql:\/\/u:\*\*\*@h\/db": expected/],
    ]
    for (const [env, msg] of cases) {
      expect(() => loadConfig(env)).toThrow(ConfigError)
      expect(() => loadConfig(env)).toThrow(msg)
      expect(() => configuredDatabase({ dataDir: '/d' }, env)).toThrow(msg)
    }
  })
})
