/**
 * The sweep and walk-forward views in a real browser (Debian's chromium through
 * playwright-core) against the real started server on a small synthetic store: a sweep
 * followed live to its end (progress, heat map, trial table, PBO and deflated Sharpe with
 * their explanations), in English and Korean; a sweep cancelled part-way, which keeps and
 * shows its finished trials and why it stopped; a walk-forward run with its folds on a time
 * line and the stitched out-of-sample curve against the in-sample curves.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { CHROMIUM, collectErrors, launch, screenshot, SKIP_REASON, startServed, type Served } from './harness'

const space = (rows: { path: string; values: string }[]) => encodeURIComponent(JSON.stringify(rows))

describe.skipIf(!CHROMIUM)(`the research views${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`, () => {
  let served: Served
  let browser: Browser

  beforeAll(async () => {
    served = await startServed({ coins: 8, days: 240 })
    browser = await launch()
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await served?.stop()
  }, 30_000)

  async function open(path: string): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
    const errors = collectErrors(page)
    await page.goto(`${served.base}${path}`)
    await page.waitForSelector('#run')
    return { page, errors }
  }

  const state = (page: Page, id: string) => page.textContent(`#${id}-state`)

  test('a sweep runs live to its end: progress, heat map, every trial, PBO and the deflated Sharpe explained', async () => {
    // from the form: the default space is sl_pct 3,5,8 × tp_pct 4,8,12; the second row typed as a range
    const { page, errors } = await open('/?view=sweep')
    await page.selectOption('#f-strategy', 'ma-cross-long')
    await page.fill('#f-topN', '6')
    await page.fill('#f-minTrades', '1')
    expect(await page.inputValue('#sp-0-path')).toBe('sl_pct')
    await page.fill('#sp-1-values', '4:12:4')
    await page.click('#run')
    await page.waitForURL(/view=sweep.*space=/)
    await page.waitForSelector('#sw-progress', { timeout: 30_000 })
    await page.waitForFunction(`document.querySelector('#sw-progress-state')?.textContent === 'done'`, undefined, { timeout: 120_000 })
    expect(await page.textContent('#sw-progress-text')).toBe('9 of 9 trials (100 %)')
    // the heat map: 3 stop losses × 3 take profits, the best cell starred
    await page.waitForSelector('#sweep-heatmap')
    expect(await page.locator('#sweep-heatmap tbody tr').count()).toBe(3)
    expect(await page.locator('#sweep-heatmap tbody td').count()).toBe(9)
    expect(await page.locator('#sweep-heatmap td.best').count()).toBe(1)
    expect(await page.locator('#sweep-trials tbody tr').count()).toBe(9)
    // overfitting, with what each figure means and the ledger's n_trials
    expect(await page.textContent('#sw-ntrials dd')).toBe('9')
    expect(await page.textContent('#sw-pbo dd')).toMatch(/^\d/)
    expect(await page.textContent('#sw-pbo-explain')).toContain('combinatorially symmetric cross-validation over 9 trials')
    const dsr = (await page.textContent('#sw-dsr-explain'))!
    expect(dsr.includes('9 trials tried') || dsr.includes('No trial reached')).toBe(true)
    // the page's figures are the API's
    const id = await page.evaluate<string | null>(`performance.getEntriesByType('resource').map(e => e.name).find(n => /\\/research\\/sweeps\\/[^/?]+\\/events/.test(n))?.split('/')[5] ?? null`)
    expect(id).not.toBeNull()
    const api = (await (await fetch(`${served.base}/research/sweeps/${id}`)).json()) as { n_trials: number; best: { trial: number } | null }
    expect(api.n_trials).toBe(9)
    if (api.best) expect(await page.getAttribute('#sweep-heatmap td.best', 'data-trial')).toBe(String(api.best.trial))
    await screenshot(page, 'sweep-done')
    expect(errors).toEqual([])
    await page.close()
  }, 180_000)

  test('a path that names no number of the strategy: the server’s 422 under the space, nothing started', async () => {
    const { page, errors } = await open('/?view=sweep')
    await page.fill('#sp-0-path', 'entry.conditions[9].value')
    await page.click('#run')
    // under the row it names
    await page.waitForSelector('#sp-0-err')
    expect(await page.textContent('#sp-0-err')).toContain("path: does not name a numeric leaf of the base's entry tree")
    expect(await page.getAttribute('#sp-0-path', 'aria-invalid')).toBe('true')
    expect(await page.locator('#sp-1-err').count()).toBe(0)
    expect(await page.locator('#sw-progress').count()).toBe(0)
    expect(await page.isEnabled('#run')).toBe(true)
    // the console's error line for the 422 response is the browser's own
    expect(errors.filter(e => !e.includes('422'))).toEqual([])
    await page.close()
  }, 60_000)

  test('in Korean', async () => {
    const { page, errors } = await open(`/?view=sweep&lang=ko&strategy=ma-cross-long&topN=4&minTrades=1&space=${space([{ path: 'sl_pct', values: '3,5' }, { path: 'tp_pct', values: '4,8' }])}`)
    expect(await page.textContent('#tab-sweep')).toBe('스윕')
    // a link that describes a run starts it
    await page.waitForFunction(`document.querySelector('#sw-progress-state')?.textContent === '완료'`, undefined, { timeout: 120_000 })
    expect(await page.textContent('#sw-progress-text')).toBe('시행 4개 중 4개 (100 %)')
    expect(await page.textContent('#sw-pbo-explain')).toContain('조합 대칭 교차검증')
    expect(await page.textContent('#overfitting h3')).toBe('과최적화 측정')
    expect(errors).toEqual([])
    await page.close()
  }, 180_000)

  test('a cancelled sweep stops, says so, and keeps the trials it finished', async () => {
    const { page, errors } = await open(`/?view=sweep&strategy=ma-cross-long&topN=8&minTrades=1&space=${space([{ path: 'indicators.ema.fast', values: '5:104:1' }, { path: 'indicators.ema.slow', values: '110:300:10' }])}`)
    // 2,000 trials, each with its own entry signals (no two share them): some in, then cancel
    await page.waitForFunction(`document.querySelectorAll('#sweep-trials tbody tr').length > 0`, undefined, { timeout: 60_000 })
    expect(await state(page, 'sw-progress')).toBe('running')
    await page.click('#sw-cancel')
    await page.waitForFunction(`document.querySelector('#sw-progress-state')?.textContent === 'cancelled'`, undefined, { timeout: 60_000 })
    await page.waitForSelector('#sw-stopped')
    expect(await page.textContent('#sw-stopped')).toContain('Stopped — cancelled')
    const text = (await page.textContent('#sw-progress-text'))!
    const [done, total] = text.match(/\d+/g)!.map(Number)
    expect(total).toBe(100 * 20)
    expect(done).toBeGreaterThan(0)
    expect(done).toBeLessThan(total!)
    // every finished trial is listed, and counted in n_trials
    expect(await page.textContent('#sweep-trials caption')).toContain(`(${done})`)
    expect(await page.textContent('#sw-ntrials dd')).toBe(String(done))
    expect(await page.locator('#sw-cancel').count()).toBe(0)
    expect(await page.isEnabled('#run')).toBe(true)
    await screenshot(page, 'sweep-cancelled')
    expect(errors).toEqual([])
    await page.close()
  }, 180_000)

  test('a ledger longer than a page of the route (1,000) is read whole: 1,170 exit-only trials listed and mapped', async () => {
    const { page, errors } = await open(`/?view=sweep&strategy=ma-cross-long&topN=4&minTrades=1&space=${space([{ path: 'sl_pct', values: '1:20:0.5' }, { path: 'tp_pct', values: '1:30:1' }])}`)
    await page.waitForFunction(`document.querySelector('#sw-progress-state')?.textContent === 'done'`, undefined, { timeout: 150_000 })
    await page.waitForSelector('#overfitting')
    expect(await page.textContent('#sweep-trials caption')).toContain('(1170)')
    expect(await page.locator('#sweep-heatmap tbody tr').count()).toBe(39)
    expect(await page.locator('#sweep-heatmap tbody td').count()).toBe(39 * 30)
    expect(await page.textContent('#sw-ntrials dd')).toBe('1170')
    expect(errors).toEqual([])
    await page.close()
  }, 180_000)

  test('a walk-forward run: folds on a time line, the stitched out-of-sample curve against each fold’s in-sample curve', async () => {
    const { page, errors } = await open(
      `/?view=walkforward&strategy=ma-cross-long&topN=6&minTrades=1&is=60&oosDays=30&folds=3&space=${space([{ path: 'sl_pct', values: '3,6' }, { path: 'tp_pct', values: '4,8' }])}`,
    )
    await page.waitForFunction(`document.querySelector('#wf-progress-state')?.textContent === 'done'`, undefined, { timeout: 150_000 })
    expect(await page.locator('#wf-timeline g[data-fold]').count()).toBe(3)
    expect(await page.locator('#wf-timeline rect.wf-is').count()).toBe(3)
    expect(await page.locator('#wf-timeline rect.wf-oos').count()).toBe(3)
    expect(await page.locator('#wf-folds tbody tr').count()).toBe(3)
    // the in-sample curves arrive one /backtest at a time
    const withParams = await page.evaluate<number>(`[...document.querySelectorAll('#wf-folds tbody tr')].filter(r => !r.textContent.includes('—  —')).length`)
    await page.waitForSelector('#wf-curves canvas', { timeout: 60_000 })
    await page.waitForFunction(`document.querySelectorAll('#wf-curves .legend li').length >= 2`, undefined, { timeout: 60_000 })
    const legend = await page.locator('#wf-curves .legend li').allTextContents()
    expect(legend[0]).toBe('out of sample, stitched')
    expect(legend.slice(1).every(l => /^fold \d in sample$/.test(l))).toBe(true)
    expect(withParams).toBeGreaterThan(0)
    expect(await page.textContent('#wf-wfe dd')).toMatch(/^(-?\d|—)/)
    await screenshot(page, 'walk-forward')
    expect(errors).toEqual([])
    await page.close()
  }, 240_000)
})
