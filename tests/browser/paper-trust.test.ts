/**
 * The paper-trading and trust views in a real browser against the real server: one store
 * with four days of live records made by the hourly job's own steps (an active paper cycle
 * with positions and an equity history, sealed Merkle days), and a fresh store where paper
 * trading has not started. Verifying a sealed day recomputes its root in the page; an
 * answer with one leaf changed (intercepted in the browser) is a mismatch.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { CHROMIUM, collectErrors, launch, pixelsOfColour, screenshot, SKIP_REASON, startServed, until, type Served } from './harness'
import { recordLiveDays } from './live-records'

const STRATEGY_BLUE: [number, number, number] = [0x1d, 0x4e, 0xd8]
/** the paper trader's picks in the prepared store (strategies that fire often on synthetic data) */
const PICKS = ['bb-squeeze-long', 'macd-cross-long', 'mean-reversion-short', 'momentum-breakout-short']

const getJson = async (url: string) => (await fetch(url)).json() as Promise<any>

describe.skipIf(!CHROMIUM)(`paper trading and trust${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`, () => {
  let served: Served
  let fresh: Served
  let browser: Browser
  /** the latest sealed day with leaves, YYYYMMDD */
  let sealedDay: string

  beforeAll(async () => {
    // JOBS=0: the servers show exactly the records made here (no start-up catch-up run)
    served = await startServed({ env: { JOBS: '0' }, before: dir => recordLiveDays(dir, 4, PICKS) })
    fresh = await startServed({ coins: 4, days: 60, env: { JOBS: '0' } })
    browser = await launch()
    const now = Date.now()
    for (let k = 1; k <= 4 && !sealedDay; k++) {
      const day = new Date(now - k * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '')
      const d = await getJson(`${served.base}/trust/merkle/${day}`)
      if (d.sealed && d.leaf_count > 0) sealedDay = day
    }
    if (!sealedDay) throw new Error('the prepared store has no sealed day with leaves')
  }, 180_000)
  afterAll(async () => {
    await browser?.close()
    await served?.stop()
    await fresh?.stop()
  }, 30_000)

  async function open(base: string, path: string, viewport = { width: 1280, height: 900 }): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage({ viewport })
    const errors = collectErrors(page)
    await page.goto(`${base}${path}`)
    return { page, errors }
  }
  const dashed = (d: string) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}`

  test('paper view: the cycle’s figures, picks and rule, the equity history drawn, open and closed positions', async () => {
    const api = await getJson(`${served.base}/paper-trading`)
    expect(api.history.length).toBeGreaterThanOrEqual(3)
    expect(api.closed_positions.length).toBeGreaterThan(0)
    const { page, errors } = await open(served.base, '/?view=paper')
    await page.waitForSelector('#paper-headline', { timeout: 30_000 })
    expect(await page.textContent('#results h2')).toBe(`Paper-trading cycle ${api.cycle_id}: active`)
    expect(await page.textContent('#pp-day dd')).toBe(`${api.cycle_day} of 30`)
    expect(await page.textContent('#pp-capital dd')).toBe('10,000 USD')
    expect(await page.textContent('#pp-equity dd')).toBe(`${api.current_equity.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} USD`)
    expect(await page.textContent('#pp-return dd')).toMatch(/^[+-]?\d+\.\d\d %$/)
    expect(await page.textContent('#pp-yesterday dd')).toContain(api.yesterday)
    // the picks and the rule as the API gives them
    expect(api.picks.rule).toBe('regime')
    expect(await page.locator('#picks tbody tr').count()).toBe(api.picks.strategies.length)
    expect(await page.textContent('#pp-rule-used')).toBe('Rule used: the regime’s recommended strategies')
    expect(await page.textContent('#pp-rule')).toBe(`Pick rule: ${api.pick_rule}`)
    // the equity history is drawn: the line's colour is on the canvas
    await page.waitForSelector('#paper-equity canvas')
    await until(async () => (await pixelsOfColour(page, '#paper-equity', STRATEGY_BLUE)) > 100)
    // positions: every open one, the latest closed ones, each with its entry against the reference entry
    expect(await page.locator('#open-positions tbody tr').count()).toBe(Math.min(25, api.open_positions.length))
    expect(await page.locator('#closed-positions tbody tr').count()).toBe(Math.min(25, api.closed_positions.length))
    const heads = await page.locator('#closed-positions thead th').allTextContents()
    expect(heads).toEqual(['Symbol', 'Strategy', 'Direction', 'Entry (UTC)', 'Entry price', 'Reference entry', 'Entry vs reference', 'Exit (UTC)', 'Exit price', 'Exit', 'P&L %', 'P&L $', 'Engine'].map(h => (h === 'Symbol' ? 'Coin' : h)))
    // each position's engine label as the API gives it (the positions opened here are labelled)
    expect(api.closed_positions.every((x: any) => typeof x.engine === 'string')).toBe(true)
    const shown = api.closed_positions.slice(0, 25)
    expect(await page.locator('#closed-positions tbody td:nth-child(13)').allTextContents()).toEqual(shown.map((x: any) => x.engine))
    expect((await page.locator('#open-positions thead th').allTextContents()).at(-1)).toBe('Engine')
    expect(await page.textContent('#pp-engine-note')).toContain('fixed when it opened')
    const reasons = await page.locator('#closed-positions tbody td:nth-child(10)').allTextContents()
    const words = new Set(['take profit', 'stop loss', 'time out', 'liquidated', 'exit signal', 'cycle end', 'cancelled'])
    expect(reasons.every(r => words.has(r))).toBe(true)
    // the public summary above: the regime and today's exposure
    expect(await page.textContent('#perf-regime dt')).toBe('Market regime')
    expect(await page.textContent('#perf-exposure dd')).toContain(`${api.open_positions.filter((p: any) => p.status === 'open').length} open`)
    await screenshot(page, 'paper')
    expect(errors).toEqual([])
    await page.close()
  }, 60_000)

  test('paper view: the engine column shows whatever label the server writes, and "none" for a position opened before labels', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const errors = collectErrors(page)
    await page.route('**/paper-trading', async route => {
      const res = await route.fetch()
      const body = await res.json()
      // the first closed position as an old one (no label), the second under a label the page has never seen
      delete body.closed_positions[0].engine
      delete body.closed_positions[0].execution
      if (body.closed_positions[1]) body.closed_positions[1].engine = 'reference-engine-v9'
      await route.fulfill({ response: res, json: body })
    })
    await page.goto(`${served.base}/?view=paper`)
    await page.waitForSelector('#closed-positions', { timeout: 30_000 })
    const cells = await page.locator('#closed-positions tbody td:nth-child(13)').allTextContents()
    expect(cells[0]).toBe('none (before labels)')
    if (cells.length > 1) expect(cells[1]).toBe('reference-engine-v9')
    await page.selectOption('#lang', 'ko')
    await until(async () => (await page.getAttribute('html', 'lang')) === 'ko')
    expect((await page.locator('#closed-positions thead th').allTextContents()).at(-1)).toBe('엔진')
    expect(await page.locator('#closed-positions tbody td:nth-child(13)').first().textContent()).toBe('없음 (라벨 이전)')
    expect(await page.textContent('#pp-engine-note')).toContain('진입 시점에 고정')
    expect(errors).toEqual([])
    await page.close()
  }, 60_000)

  test('paper view: a cycle picked goes into the address; back and forward restore the views', async () => {
    const { page, errors } = await open(served.base, '/?view=paper')
    await page.waitForSelector('#paper-headline', { timeout: 30_000 })
    expect(await page.locator('#f-cycle option').allTextContents()).toEqual(['the latest', 'Cycle 1'])
    await page.selectOption('#f-cycle', '1')
    await page.click('#run')
    await page.waitForURL(/cycle=1/)
    await page.waitForSelector('#paper-headline')
    // to the trust view through the tabs, then back to the paper view and its cycle
    await page.click('#tab-trust')
    await page.waitForSelector('#trust-metrics', { timeout: 30_000 })
    expect(new URL(page.url()).searchParams.get('view')).toBe('trust')
    await page.goBack()
    await page.waitForURL(/view=paper.*&cycle=1/)
    await page.waitForSelector('#paper-headline')
    expect(await page.inputValue('#f-cycle')).toBe('1')
    await page.goForward()
    await page.waitForSelector('#trust-metrics')
    // a cycle that does not exist is said plainly, not as an error
    await page.goto(`${served.base}/?view=paper&cycle=9`)
    await page.waitForSelector('#paper-empty')
    expect(await page.textContent('#paper-empty')).toContain('There is no paper-trading cycle 9.')
    expect(errors.filter(e => !e.includes('404'))).toEqual([])
    await page.close()
  }, 60_000)

  test('paper view on a fresh store: "not started" as an empty state, not an error', async () => {
    expect((await fetch(`${fresh.base}/paper-trading`)).status).toBe(404)
    const { page, errors } = await open(fresh.base, '/?view=paper')
    await page.waitForSelector('#paper-empty', { timeout: 30_000 })
    expect(await page.textContent('#paper-empty')).toContain('Paper trading has not started on this server yet.')
    expect(await page.textContent('#paper-empty')).toContain('not initialized')
    expect(await page.locator('.error-box').count()).toBe(0)
    expect(await page.locator('#perf-regime').count()).toBe(1)
    await screenshot(page, 'paper-empty')
    // the browser's own line for the expected 404, nothing else
    expect(errors.filter(e => !e.includes('404'))).toEqual([])
    await page.close()
  }, 60_000)

  test('trust view: the metrics with their meaning, and the day root as published', async () => {
    const m = await getJson(`${served.base}/trust/metrics`)
    const d = await getJson(`${served.base}/trust/merkle/${sealedDay}`)
    const { page, errors } = await open(served.base, `/?view=trust&day=${dashed(sealedDay)}`)
    await page.waitForSelector('#trust-metrics', { timeout: 30_000 })
    expect(await page.locator('#trust-metrics .stat').count()).toBe(7)
    for (const x of await page.locator('#trust-metrics .stat-x').allTextContents()) expect(x.length).toBeGreaterThan(20)
    expect(await page.textContent('#tm-coverage .stat-value')).toBe(`${(m.scoring_coverage * 100).toFixed(1)} %`)
    expect(await page.textContent('#tm-latency .stat-value')).toMatch(/^median \d+ s · p90 \d+ s \(\d+ samples\)$/)
    expect(await page.textContent('#tm-slippage .stat-value')).toContain(`(${m.paper_vs_reference_slippage_pct.samples} samples)`)
    await page.waitForSelector('#merkle-day')
    expect(await page.textContent('#md-date dd')).toBe(sealedDay)
    expect(await page.textContent('#md-count dd')).toBe(String(d.leaf_count))
    expect(await page.textContent('#md-root dd')).toBe(d.root)
    expect(await page.textContent('#md-algorithm dd')).toBe('rfc6962-sha256')
    expect(await page.textContent('#md-sealed dd')).toStartWith('yes, at ')
    expect(await page.inputValue('#f-tday')).toBe(dashed(sealedDay))
    // a day that does not exist: the server's 422 under the day field
    await page.goto(`${served.base}/?view=trust&day=2026-02-30`)
    await page.waitForSelector('#f-tday-err', { timeout: 30_000 })
    expect(await page.getAttribute('#f-tday', 'aria-invalid')).toBe('true')
    expect(errors.filter(e => !e.includes('422'))).toEqual([])
    await page.close()
  }, 60_000)

  test('“Verify in this browser” on a sealed day recomputes the published root: match', async () => {
    const d = await getJson(`${served.base}/trust/merkle/${sealedDay}`)
    const { page, errors } = await open(served.base, `/?view=trust&day=${dashed(sealedDay)}`)
    await page.waitForSelector('#verify', { timeout: 30_000 })
    await page.click('#verify')
    await page.waitForSelector('#verify-result', { timeout: 30_000 })
    expect(await page.getAttribute('#verify-result', 'class')).toContain('verify-ok')
    expect(await page.textContent('#verify-result')).toContain(`✓ Match: the ${d.leaf_count} leaves give the published root.`)
    expect(await page.textContent('#verify-result')).toContain(`computed here: ${d.root}`)
    await screenshot(page, 'trust')
    expect(errors).toEqual([])
    await page.close()
  }, 60_000)

  test('a leaves answer with one leaf changed (intercepted in the browser) is a mismatch naming that leaf', async () => {
    const { page, errors } = await open(served.base, `/?view=trust&day=${dashed(sealedDay)}`)
    await page.route('**/trust/merkle/*/leaves', async route => {
      const res = await route.fetch()
      const body = await res.json()
      const k = Math.floor(body.leaves.length / 2)
      body.leaves[k].leaf = body.leaves[k].leaf.replace('"coin":"', '"coin":"X')
      await route.fulfill({ response: res, json: body })
    })
    const count = (await getJson(`${served.base}/trust/merkle/${sealedDay}`)).leaf_count
    await page.waitForSelector('#verify', { timeout: 30_000 })
    await page.click('#verify')
    await page.waitForSelector('#verify-result', { timeout: 30_000 })
    expect(await page.getAttribute('#verify-result', 'class')).toContain('verify-bad')
    const text = (await page.textContent('#verify-result'))!
    expect(text).toContain('✗ Mismatch: the leaves do not give the published root.')
    expect(text).toContain(`Leaves whose text does not hash to their published hash: ${Math.floor(count / 2)}`)
    await screenshot(page, 'trust-mismatch')
    expect(errors).toEqual([])
    await page.close()
  }, 60_000)

  test('on a phone’s width neither view scrolls the page sideways (tables scroll in their box, roots wrap)', async () => {
    const { page, errors } = await open(served.base, '/?view=paper', { width: 390, height: 844 })
    await page.waitForSelector('#closed-positions', { timeout: 30_000 })
    const overflow = () => page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')
    expect(await overflow()).toBeLessThanOrEqual(0)
    await screenshot(page, 'paper-phone')
    await page.click('#tab-trust')
    await page.waitForSelector('#verify', { timeout: 30_000 })
    await page.click('#verify')
    await page.waitForSelector('#verify-result', { timeout: 30_000 })
    expect(await overflow()).toBeLessThanOrEqual(0)
    await screenshot(page, 'trust-phone')
    expect(errors).toEqual([])
    await page.close()
  }, 60_000)

  test('both views in Korean', async () => {
    const { page, errors } = await open(served.base, `/?view=paper&lang=ko`)
    await page.waitForSelector('#paper-headline', { timeout: 30_000 })
    expect(await page.textContent('#tab-paper')).toBe('모의 투자')
    expect(await page.textContent('#results h2')).toContain('사이클')
    expect(await page.textContent('#pp-day dt')).toBe('일차')
    await page.click('#tab-trust')
    await page.waitForSelector('#trust-metrics')
    expect(new URL(page.url()).searchParams.get('lang')).toBe('ko')
    expect(await page.textContent('#tm-coverage dt')).toBe('채점 범위')
    expect(await page.textContent('#verify')).toBe('이 브라우저에서 검증')
    await screenshot(page, 'trust-ko')
    expect(errors).toEqual([])
    await page.close()
  }, 60_000)
})
