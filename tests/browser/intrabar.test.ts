/**
 * The page's "Execution" group (the intrabar setting) and the results' "Inside the bar"
 * block, in English and Korean, in a real browser against the started server on a small
 * synthetic store (whose coins all have derived minute detail).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { CHROMIUM, collectErrors, launch, screenshot, SKIP_REASON, startServed, type Served } from './harness'

describe.skipIf(!CHROMIUM)(`the intrabar setting and block${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`, () => {
  let served: Served
  let browser: Browser

  beforeAll(async () => {
    served = await startServed()
    browser = await launch()
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await served?.stop()
  }, 30_000)

  async function open(path: string): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const errors = collectErrors(page)
    await page.goto(`${served.base}${path}`)
    return { page, errors }
  }

  test('a run with minute detail shows the replays and the bar rule beside them; the bar rule shows none', async () => {
    const { page, errors } = await open('/?sl=1&tp=1.5&topN=12')
    expect(await page.textContent('#execution legend')).toBe('Execution')
    expect(await page.inputValue('#f-intrabar')).toBe('detail')
    await page.click('#run')
    await page.waitForSelector('#intrabar', { timeout: 30_000 })
    expect(await page.textContent('#ib-mode dd')).toBe('minute detail (1m)')
    expect(Number((await page.textContent('#ib-replayed dd'))!.replace(/\D/g, ''))).toBeGreaterThan(0)
    expect(await page.locator('#ib-bias tbody tr').count()).toBe(3)
    await screenshot(page, 'intrabar-detail')

    await page.selectOption('#f-intrabar', 'bar')
    await page.click('#run')
    await page.waitForFunction(`document.querySelector('#ib-mode dd')?.textContent === 'the bar rule'`, undefined, { timeout: 30_000 })
    expect(await page.textContent('#ib-replayed dd')).toBe('0')
    expect(await page.locator('#ib-bias').count()).toBe(0)
    expect(new URL(page.url()).searchParams.get('intrabar')).toBe('bar')
    expect(errors).toEqual([])
  }, 60_000)

  test('in Korean; an unknown value from the address is sent as typed and the 422 shows at the field', async () => {
    const { page } = await open('/?lang=ko&sl=1&tp=1.5&topN=12')
    expect(await page.textContent('#execution legend')).toBe('체결')
    await page.click('#run')
    await page.waitForSelector('#intrabar', { timeout: 30_000 })
    expect(await page.textContent('#ib-h')).toBe('봉 안의 체결')
    expect(await page.textContent('#ib-mode dd')).toBe('1분봉 재생')
    await screenshot(page, 'intrabar-ko')

    const bad = await open('/?intrabar=minute&topN=5')
    await bad.page.click('#run')
    await bad.page.waitForSelector('#f-intrabar-err', { timeout: 30_000 })
    expect(await bad.page.textContent('#f-intrabar-err')).toContain('minute')
  }, 60_000)
})
