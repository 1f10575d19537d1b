/**
 * "As known then / today's coins" on the page, in a real browser against the real server
 * on a synthetic store with delistings (data generate writes them): a point-in-time run
 * shows its survivorship block (the same run on today's coins beside it, the coins that
 * came and went, the delisted ones), in English and in Korean; a run on today's coins says so.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { CHROMIUM, collectErrors, launch, screenshot, SKIP_REASON, startServed, until, type Served } from './harness'

describe.skipIf(!CHROMIUM)(`the universe on the page${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`, () => {
  let served: Served
  let browser: Browser
  let startDate: string

  beforeAll(async () => {
    served = await startServed({ coins: 12, days: 240 })
    browser = await launch()
    const coins = (await (await fetch(`${served.base}/coins?include_delisted=true`)).json()) as { symbol: string; date_from: string; status: string }[]
    startDate = coins.find(c => c.symbol === 'BTCUSDT')!.date_from
    // 40 days in: well before the delistings (35 % to 80 % of the window)
    startDate = new Date(Date.parse(`${startDate}T00:00:00Z`) + 40 * 86_400_000).toISOString().slice(0, 10)
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await served?.stop()
  }, 30_000)

  test('as known then: the survivorship figures beside today’s coins, the delisted coins named; in Korean too', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const errors = collectErrors(page)
    await page.goto(`${served.base}/?lang=en`)
    await page.selectOption('#f-strategy', 'ma-cross-long')
    await page.fill('#f-topN', '10')
    await page.fill('#f-from', startDate)
    await page.selectOption('#f-asof', 'point_in_time')
    await page.click('#run')
    await page.waitForSelector('#survivorship[data-mode="point_in_time"]', { timeout: 60_000 })
    expect(new URL(page.url()).searchParams.get('asof')).toBe('point_in_time')
    expect(await page.textContent('#universe-mode')).toContain('As known then')
    expect(await page.textContent('#universe-mode')).toContain('first day of each month')
    // the same run on today's coins, as the API answers it
    const body: any = await page.evaluate(async ([from]) => {
      const r = await fetch('/simulate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ strategy: 'ma-cross-long', top_n: 10, start_date: from, universe: 'point_in_time' }) })
      return r.json()
    }, [startDate])
    expect(body.survivorship.delisted_in_window.length).toBeGreaterThan(0)
    const delisted = await page.textContent('#surv-delisted')
    for (const s of body.survivorship.delisted_in_window as string[]) expect(delisted).toContain(s.replace(/USDT$/, ''))
    expect(await page.textContent('#surv-compare')).toContain("Today's coins")
    expect((await page.textContent('#surv-compare tbody tr:nth-child(4) td:nth-child(3)'))!.replace(/\D/g, '')).toBe(String(body.survivorship.current_universe_result.total_trades))
    await screenshot(page, 'universe-then')
    await page.selectOption('#lang', 'ko')
    await until(async () => (await page.getAttribute('html', 'lang')) === 'ko')
    expect(await page.textContent('#surv-h')).toBe('유니버스와 생존 편향')
    expect(await page.textContent('#universe-mode')).toContain('당시 기준')
    expect(await page.textContent('#surv-delisted')).toContain('기간 중 상장폐지')
    await screenshot(page, 'universe-then-ko')
    expect(errors).toEqual([])
  }, 120_000)

  test("today's coins: the run says which coins it used, without a survivorship comparison", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const errors = collectErrors(page)
    await page.goto(`${served.base}/?lang=en&strategy=ma-cross-long&dir=long&topN=10&from=${startDate}&asof=current`)
    expect(await page.inputValue('#f-asof')).toBe('current')
    await page.click('#run')
    await page.waitForSelector('#survivorship[data-mode="current"]', { timeout: 60_000 })
    expect(await page.textContent('#universe-mode')).toContain("Today's coins")
    expect(await page.locator('#surv-compare').count()).toBe(0)
    expect(errors).toEqual([])
  }, 120_000)
})
