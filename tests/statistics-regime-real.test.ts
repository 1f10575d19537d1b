import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { btcRegimeLabels, regimeAt } from '../src/engine/statistics-regime'

const BTC_1H = join(import.meta.dir, '../../shared/data/binance-usdm-1h/BTCUSDT.csv.gz')
const missing = !existsSync(BTC_1H)
if (missing) console.warn(`skipping real-data regime tests: ${BTC_1H} not found`)

const DAY = 86_400_000

/** UTC daily closes from the 1h candles: the close of each day's last (23:00) hour. */
function btcDaily(): { t: number[]; c: number[] } {
  const rows = gunzipSync(readFileSync(BTC_1H)).toString('utf8').trim().split('\n').slice(1)
  const t: number[] = []
  const c: number[] = []
  for (const row of rows) {
    const f = row.split(',')
    const openMs = Number(f[0])
    if (openMs % DAY === 23 * 3_600_000) {
      t.push(openMs - 23 * 3_600_000)
      c.push(Number(f[4]))
    }
  }
  return { t, c }
}

describe.skipIf(missing)('BTC regimes on real Binance data (2020-10 to 2024-06)', () => {
  const { t, c } = missing ? { t: [], c: [] } : btcDaily()
  const labels = missing ? [] : btcRegimeLabels(t, c)
  const at = (iso: string) => regimeAt(labels, t, Date.parse(iso))

  test('the 2022 bear market is below the 200-day mean, the 2024 rally above it', () => {
    expect(at('2022-06-30T12:00:00Z').trend).toBe('down')
    expect(at('2022-11-20T12:00:00Z').trend).toBe('down')
    expect(at('2024-03-14T12:00:00Z').trend).toBe('up')
  })

  test('the June 2022 crash is high volatility, the quiet summer of 2023 low', () => {
    expect(at('2022-06-25T12:00:00Z').vol).toBe('high')
    expect(at('2023-08-10T12:00:00Z').vol).toBe('low')
  })

  test('there are no labels before 200 days of history', () => {
    expect(labels[198].trend).toBeNull()
    expect(labels[199].trend).not.toBeNull()
  })
})
