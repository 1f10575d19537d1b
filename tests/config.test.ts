import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../src/config'

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
