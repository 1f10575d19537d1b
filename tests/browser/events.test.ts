/**
 * The signals view follows the push feed in a real browser (docs/events.md, web/live.ts):
 * a "live" indicator once the stream is open, and a signal recorded after the page loaded
 * (here by another process on the same database, as the hourly job would) appears in the
 * recent table without a reload; after a kill -9 and restart of the server the page
 * resumes with Last-Event-ID and shows what was recorded meanwhile; the indicator speaks
 * Korean on the Korean page.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { openDb } from '../../src/db'
import { HOUR_MS } from '../../src/time'
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
  }, 30_000)

  test('a signal recorded after the page loaded appears in the recent table, with the live indicator on', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const errors = collectErrors(page)
    await page.goto(`${served.base}/?view=signals`)
    await page.waitForSelector('#live.live-live', { timeout: 30_000 })
    expect(await page.textContent('#live')).toBe('● live')
    await page.waitForSelector('#results', { timeout: 30_000 })
    const coin = ((await (await fetch(`${served.base}/coins`)).json()) as { symbol: string }[])[0]!.symbol
    const barMs = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - HOUR_MS
    /** record a signal as another process (the hourly job) would, on the server's database */
    const record = async (strategy: string, name: string, entryPrice: number) => {
      const db = openDb(join(served.dataDir, 'perpsim.sqlite'))
      try {
        await insertSignals(db, [
          {
            id: signalId(strategy, '1H', coin, barMs), strategy, strategyName: name, status: 'verified', coin, direction: 'long', timeframe: '1H',
            signalBarMs: barMs, signalTimeMs: barMs + HOUR_MS, entryPrice, slPct: 5, tpPct: 10, maxBars: 48, publishedAtMs: Date.now(), backfill: false,
          },
        ])
      } finally {
        await db.close()
      }
    }
    const shown = (price: string) => page.waitForFunction(`document.querySelector('#recent tbody')?.textContent.includes('${price}')`, undefined, { timeout: 20_000 })
    await record('supertrend-long', 'Supertrend LONG', 12345.6)
    await shown('12345.6')
    expect(await page.textContent('#recent tbody tr:first-child')).toContain('Supertrend LONG')
    await screenshot(page, 'signals-live')

    // the server dies (SIGKILL); a signal is recorded while it is down; the browser's
    // EventSource reconnects to the new process with Last-Event-ID and gets it: a stream
    // opened afresh would start after it and never show it
    await served.crashAndRestart(async () => {
      await page.waitForSelector('#live.live-reconnecting', { timeout: 10_000 })
      await record('ichimoku-long', 'Ichimoku LONG', 23456.7)
    })
    await shown('23456.7')
    await page.waitForSelector('#live.live-live', { timeout: 10_000 })
    expect(await page.textContent('#recent tbody')).toContain('12345.6')
    // the browser reports the stream cut by the kill and the connections refused while the
    // server was down; nothing else
    expect(errors.filter(e => !/net::ERR_(INCOMPLETE_CHUNKED_ENCODING|CONNECTION_REFUSED)/.test(e))).toEqual([])
    await page.close()

    const ko = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await ko.goto(`${served.base}/?view=signals&lang=ko`)
    await ko.waitForSelector('#live.live-live', { timeout: 30_000 })
    expect(await ko.textContent('#live')).toBe('● 실시간')
    await ko.close()
  }, 90_000)
})
