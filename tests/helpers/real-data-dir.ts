/**
 * Where the real Binance data for tests and benchmarks is: REAL_DATA_DIR, else ../shared/data
 * beside the repository. It holds binance-usdm-1h/, binance-usdm-funding/ and the universe
 * CSV; tests that need it skip cleanly without it (tests/helpers/setup.ts says so once).
 */
import { join, resolve } from 'node:path'

export const REAL_DATA_DIR = process.env.REAL_DATA_DIR ? resolve(process.env.REAL_DATA_DIR) : join(import.meta.dir, '..', '..', '..', 'shared', 'data')
