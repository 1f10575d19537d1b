/**
 * The signals view follows the push feed in a real browser (docs/events.md, web/live.ts):
 * a "live" indicator once the stream is open, and a signal recorded after the page loaded
 * (here by another process on the same database, as the hourly job would) appears in the
 * recent table without a reload; the indicator speaks Korean on the Korean page.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { openDb } from '../../src/db'
import { HOUR_MS } from '../../src/market/types'
import { insertSignals, signalId } from '../../src/records/signals'
import { CHROMIUM, collectErrors, launch, screenshot, SKIP_REASON, startServed, type Served } from './harness'
import { recordLiveDays } from './live-records'

describe.skipIf(!CHROMIUM)(`the signals view, live${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`, () => {
  let served: Served
  let browser: Browser
  beforeAll(async () => {
    // JOBS=0: the only new records are the ones this test writes; a fast slow-poll finds them
    served = await startServed({ coins: 4, days: 60, env: { JOBS: '0', EVENTS_POLL_MS: '100' }, before: dir => recordLiveDays(dir, 1, ['bb-squeeze-long']) })
    browser = await launch()
  }, 180_000)
  afterAll(async () => {
    await browser?.close()
    await served?.stop()
  })

  test('a signal recorded after the page loaded appears in the recent table, with the live indicator on', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const errors = collectErrors(page)
    await page.goto(`${served.base}/?view=signals`)
    await page.waitForSelector('#live.live-live', { timeout: 30_000 })
    expect(await page.textContent('#live')).toBe('● live')
    await page.waitForSelector('#results', { timeout: 30_000 })
    const coin = ((await (await fetch(`${served.base}/coins`)).json()) as { symbol: string }[])[0]!.symbol
    const barMs = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - HOUR_MS
    const db = openDb(join(served.dataDir, 'perpsim.sqlite'))
    try {
      insertSignals(db, [
        {
          id: signalId('supertrend-long', '1H', coin, barMs), strategy: 'supertrend-long', strategyName: 'Supertrend LONG', status: 'verified', coin, direction: 'long', timeframe: '1H',
          signalBarMs: barMs, signalTimeMs: barMs + HOUR_MS, entryPrice: 12345.6, slPct: 5, tpPct: 10, maxBars: 48, publishedAtMs: Date.now(), backfill: false,
        },
      ])
    } finally {
      db.$client.close()
    }
    await page.waitForFunction(`document.querySelector('#recent tbody')?.textContent.includes('12345.6')`, undefined, { timeout: 15_000 })
    expect(await page.textContent('#recent tbody tr:first-child')).toContain('Supertrend LONG')
    await screenshot(page, 'signals-live')
    expect(errors).toEqual([])
    await page.close()

    const ko = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await ko.goto(`${served.base}/?view=signals&lang=ko`)
    await ko.waitForSelector('#live.live-live', { timeout: 30_000 })
    expect(await ko.textContent('#live')).toBe('● 실시간')
    await ko.close()
  }, 90_000)
})
