/**
 * Preloaded by `bun test` (bunfig.toml). When the real data is absent, says once, up front,
 * which tests will be skipped and how to run them; .ci/run repeats the line beside its
 * closing count. REDIS_URL is taken out of the environment here and kept as
 * PERPSIM_TEST_REDIS_URL for the tests that use Redis (tests/helpers/redis.ts): a server a
 * test starts, or a config a test loads, from process.env must not turn into a queue node
 * without workers just because CI has a Redis. DATABASE_URL likewise becomes
 * PERPSIM_TEST_DATABASE_URL (tests/helpers/postgres.ts): each Postgres test makes a database
 * of its own on that server, and no other test's app opens the shared one.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { REAL_DATA_DIR } from './real-data-dir'

if (!existsSync(join(REAL_DATA_DIR, 'binance-usdm-1h')))
  process.stderr.write(
    `skipped: the real-data tests (Binance candles and funding) - no binance-usdm-1h/ under ${REAL_DATA_DIR}; ` +
      'set REAL_DATA_DIR to a folder with binance-usdm-1h/ and binance-usdm-funding/ (README "Tests")\n',
  )

if (process.env.REDIS_URL) {
  process.env.PERPSIM_TEST_REDIS_URL ??= process.env.REDIS_URL
  delete process.env.REDIS_URL
}

if (process.env.DATABASE_URL) {
  process.env.PERPSIM_TEST_DATABASE_URL ??= process.env.DATABASE_URL
  delete process.env.DATABASE_URL
}
