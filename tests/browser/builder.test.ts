/**
 * The builder's boxes show the tree they are in, in a real browser (Debian's chromium through
 * playwright-core) against the real started server on a small synthetic store.
 *
 * A number box keeps its text as typed while it has the focus (web/builder/typed-text.ts), and
 * the JSON box keeps what was typed into it. Neither may carry that text over to another tree:
 * a preset (or an address) that replaces the tree gets boxes showing its own numbers and its
 * own JSON. A preset's detail arrives a moment after it is picked; the user can be in a box by
 * then. The tests hold that answer until a box has the focus, so the order is the same on every
 * run, not a race.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { CHROMIUM, collectErrors, launch, SKIP_REASON, startServed, type Served } from './harness'

interface PresetDetail {
  indicators: Record<string, Record<string, number>>
  entry: { type?: string; conditions?: { value?: unknown }[] }
}

describe.skipIf(!CHROMIUM)(`the builder${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`, () => {
  let served: Served
  let browser: Browser

  beforeAll(async () => {
    served = await startServed({ coins: 3, days: 60 })
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
    await page.waitForSelector('#builder')
    return { page, errors }
  }

  const detail = async (id: string) => (await (await fetch(`${served.base}/builder/presets/${id}`)).json()) as PresetDetail

  /**
   * Pick a preset and, before its detail has arrived, click into a box of the tree shown until
   * then; then let the detail arrive (the name box shows the preset's name).
   */
  async function presetLandsWhileIn(page: Page, preset: string, box: string) {
    const name = await page.inputValue('#b-name')
    let release!: () => void
    const held = new Promise<void>(r => (release = r))
    await page.route(`**/builder/presets/${preset}`, async route => {
      await held
      await route.continue()
    })
    await page.selectOption('#b-preset', preset)
    await page.click(box)
    expect(await page.evaluate(`document.activeElement?.id`)).toBe(box.slice(1))
    release()
    await page.waitForFunction(`document.querySelector('#b-name').value !== ${JSON.stringify(name)}`)
    // what a box shows is settled after a render and its effects (a frame later)
    await page.waitForTimeout(300)
  }

  /** every parameter box as `indicator.param` → the text it shows */
  const paramBoxes = (page: Page) =>
    page.evaluate<Record<string, string>>(`Object.fromEntries([...document.querySelectorAll('.params input')].map(i => [i.id.replace(/^p-/, '').replace('-', '.'), i.value]))`)
  /** a preset's params as the boxes show them: the number, or blank for the indicator's default */
  const asBoxes = (indicators: PresetDetail['indicators'], shown: Record<string, string>) =>
    Object.fromEntries(Object.keys(shown).map(k => [k, String(indicators[k.split('.')[0]!]?.[k.split('.')[1]!] ?? '')]))

  test('a preset that lands while a parameter box has the focus shows its own parameters, not the last tree’s numbers', async () => {
    // RSI's period (14) is the first box; MACD's fast (12) takes its place
    const { page, errors } = await open('/?mode=builder&preset=rsi-oversold-bounce')
    await page.waitForSelector('#p-rsi-period')
    expect(await page.inputValue('#p-rsi-period')).toBe('14')
    await presetLandsWhileIn(page, 'macd-cross-long', '#p-rsi-period')
    expect(await page.inputValue('#p-macd-fast')).toBe('12')
    const shown = await paramBoxes(page)
    expect(Object.keys(shown)).toEqual(['macd.fast', 'macd.slow', 'macd.signal'])
    expect(shown).toEqual(asBoxes((await detail('macd-cross-long')).indicators, shown))
    // and the box edits the parameter it shows
    await page.fill('#p-macd-fast', '10')
    await page.click('#run')
    await page.waitForURL(/b=/)
    const spec = JSON.parse(new URL(page.url()).searchParams.get('b')!) as PresetDetail
    expect(spec.indicators).toEqual({ macd: { fast: 10, slow: 26, signal: 9 } })
    expect(errors).toEqual([])
    await page.close()
  }, 60_000)

  test('a preset that lands while a parameter box has the focus shows its number for the same parameter too', async () => {
    // EMA's fast is 20 in one preset and 50 in the other: the same box, another tree
    const { page, errors } = await open('/?mode=builder&preset=ema-trend-pullback')
    await page.waitForSelector('#p-ema-fast')
    expect(await page.inputValue('#p-ema-fast')).toBe('20')
    await presetLandsWhileIn(page, 'ma-cross-long', '#p-ema-fast')
    expect(await page.inputValue('#p-ema-fast')).toBe('50')
    const shown = await paramBoxes(page)
    expect(shown).toEqual(asBoxes((await detail('ma-cross-long')).indicators, shown))
    expect(errors).toEqual([])
    await page.close()
  }, 60_000)

  test('a preset that lands while a row’s value box has the focus shows its own value in that row', async () => {
    // row 1 is `rsi < 30` in one preset and `macd_hist < 0` in the other
    const { page, errors } = await open('/?mode=builder&preset=rsi-oversold-bounce')
    await page.waitForSelector('#c0-value')
    expect(await page.inputValue('#c0-value')).toBe('30')
    await presetLandsWhileIn(page, 'macd-cross-long', '#c0-value')
    expect(await page.inputValue('#c0-field')).toBe('macd_hist')
    expect(await page.inputValue('#c0-value')).toBe('0')
    expect(await page.inputValue('#c1-value')).toBe('0')
    expect(errors).toEqual([])
    await page.close()
  }, 60_000)

  test('back to an address with another tree while a parameter box has the focus shows that address’s numbers', async () => {
    const built = (indicators: object, field: string) => `/?mode=builder&b=${encodeURIComponent(JSON.stringify({ name: field, dir: 'long', indicators, entry: { type: 'AND', conditions: [{ field, op: '<', value: 30 }] } }))}`
    const { page, errors } = await open(built({ rsi: { period: 21 } }, 'rsi'))
    await page.waitForSelector('#p-rsi-period')
    // the next address, as a run pushes it
    await page.evaluate(`history.pushState(null, '', ${JSON.stringify(built({ macd: { fast: 8 } }, 'macd'))}); dispatchEvent(new PopStateEvent('popstate'))`)
    await page.waitForSelector('#p-macd-fast')
    expect(await page.inputValue('#p-macd-fast')).toBe('8')
    await page.click('#p-macd-fast')
    await page.goBack()
    await page.waitForFunction(`document.querySelector('#b-name').value === 'rsi'`)
    await page.waitForTimeout(300)
    expect(await paramBoxes(page)).toEqual({ 'rsi.period': '21' })
    expect(errors).toEqual([])
    await page.close()
  }, 60_000)

  test('the JSON box shows a preset’s tree after JSON typed earlier made the tree flat', async () => {
    const { page, errors } = await open('/?mode=builder&preset=volume-spike-reversal')
    await page.waitForSelector('#b-json')
    // typed JSON that the rows can show: the rows take over
    await page.fill('#b-json', JSON.stringify({ type: 'AND', conditions: [{ field: 'rsi', op: '<', value: 25 }] }))
    await page.waitForSelector('#c0-field')
    expect(await page.inputValue('#c0-value')).toBe('25')
    expect(await page.locator('#b-json').count()).toBe(0)
    // a preset with nested groups: its own tree, not the text typed for the last one
    await page.selectOption('#b-preset', 'keltner-squeeze-long')
    await page.waitForSelector('#b-json')
    expect(JSON.parse(await page.inputValue('#b-json'))).toEqual((await detail('keltner-squeeze-long')).entry)
    expect(errors).toEqual([])
    await page.close()
  }, 60_000)

  test('the JSON box shows a preset’s tree after JSON typed into it for the last tree', async () => {
    const { page, errors } = await open('/?mode=builder&preset=volume-spike-reversal')
    await page.waitForSelector('#b-json')
    const typed = JSON.stringify({ type: 'OR', conditions: [{ field: 'rsi', op: '>', value: 70 }, { type: 'AND', conditions: [{ field: 'close', op: '>', value: 1 }] }] })
    await page.fill('#b-json', typed)
    // the typed text is kept as typed while it is the tree's
    expect(await page.inputValue('#b-json')).toBe(typed)
    const name = await page.inputValue('#b-name')
    await page.selectOption('#b-preset', 'keltner-squeeze-long')
    await page.waitForFunction(`document.querySelector('#b-name').value !== ${JSON.stringify(name)}`)
    expect(JSON.parse(await page.inputValue('#b-json'))).toEqual((await detail('keltner-squeeze-long')).entry)
    // and text that does not parse is kept, with the reason, until it does
    await page.fill('#b-json', '{"type": "AND", ')
    expect(await page.inputValue('#b-json')).toBe('{"type": "AND", ')
    expect(await page.textContent('#b-json-err')).toContain('Not valid JSON')
    expect(errors).toEqual([])
    await page.close()
  }, 60_000)

  test('JSON that is not an object is named as not a tree, and the tree stays as it was', async () => {
    const { page, errors } = await open('/?mode=builder&preset=volume-spike-reversal')
    await page.waitForSelector('#b-json')
    const before = JSON.parse(await page.inputValue('#b-json'))
    for (const [typed, kind] of [['1', 'number'], ['null', 'null'], ['[1, 2]', 'array'], ['"rsi"', 'string'], ['true', 'boolean']]) {
      await page.fill('#b-json', typed!)
      expect(await page.inputValue('#b-json')).toBe(typed!)
      expect(await page.textContent('#b-json-err')).toContain(`Not a condition tree: a JSON object is expected, not ${kind}`)
    }
    // a run takes the last tree the box held
    await page.click('#run')
    await page.waitForURL(/b=/)
    expect((JSON.parse(new URL(page.url()).searchParams.get('b')!) as PresetDetail).entry).toEqual(before)
    expect(errors).toEqual([])
    await page.close()
  }, 60_000)
  test('a row reads its field on a higher timeframe and of another coin, and offers the derivatives fields', async () => {
    const { page, errors } = await open('/?mode=builder')
    await page.waitForSelector('#c0-timeframe')
    const fields = await page.evaluate<string[]>(`[...document.querySelectorAll('#c0-field option')].map(o => o.value)`)
    expect(fields).toEqual(expect.arrayContaining(['funding_rate', 'funding_rate_mean', 'basis', 'open_interest']))
    await page.selectOption('#c0-timeframe', '4H')
    await page.fill('#c0-symbol', 'btcusdt')
    await page.press('#c0-symbol', 'Tab')
    expect(await page.inputValue('#c0-symbol')).toBe('BTCUSDT')
    // the run's answer is held until the symbol box has been emptied, then lands while the
    // box still has the focus: the render it brings must not put the old symbol back
    let release!: () => void
    const held = new Promise<void>(r => (release = r))
    await page.route('**/backtest', async route => {
      await held
      await route.continue()
    })
    await page.click('#run')
    await page.waitForURL(/b=/)
    const entry = (JSON.parse(new URL(page.url()).searchParams.get('b')!) as PresetDetail).entry as { conditions: Record<string, unknown>[] }
    expect(entry.conditions[0]).toMatchObject({ field: 'rsi', timeframe: '4H', symbol: 'BTCUSDT' })
    // back to the run's timeframe and this coin: the keys go
    await page.selectOption('#c0-timeframe', '')
    await page.fill('#c0-symbol', '')
    release()
    await page.waitForSelector('#run:not([disabled])')
    expect(await page.inputValue('#c0-symbol')).toBe('')
    await page.unroute('**/backtest')
    await page.press('#c0-symbol', 'Tab')
    await page.click('#run')
    await page.waitForURL(u => !new URL(u).searchParams.get('b')!.includes('timeframe'))
    const plain = (JSON.parse(new URL(page.url()).searchParams.get('b')!) as PresetDetail).entry as { conditions: Record<string, unknown>[] }
    expect(plain.conditions[0]).toEqual({ field: 'rsi', op: '<', value: 30 })
    expect(errors).toEqual([])
    await page.close()
  }, 60_000)
})
