import { describe, expect, test } from 'bun:test'
import { formatFigures, settingsLine, type CardFigures } from '../src/cards/card-figures'
import { cardSvg, sparklinePath } from '../src/cards/card-svg'
import { escapeMarkup, safeUrlAttr } from '../src/cards/escape'

const figures = (over: Partial<CardFigures> = {}): CardFigures => ({
  name: 'BB Squeeze SHORT',
  nameKo: '볼린저 밴드 스퀴즈 숏',
  direction: 'short',
  status: 'testing',
  settings: { slPct: 10, tpPct: 8, leverage: 5, feePct: 0.05, topN: 10, from: null, to: null, timeframe: '1H', maxBars: null },
  winRatePct: 55.04,
  profitFactor: 1.237,
  profitFactorCapped: false,
  totalReturnPct: -12.25,
  maxDrawdownPct: 20.5,
  ruinedOn: null,
  trades: 1234,
  equityReturnPct: [0, 1, -2, 3],
  dataSpan: { from: '2025-01-01', to: '2025-03-01' },
  ...over,
})

describe('escaping', () => {
  test('markup text and attributes lose their five special characters', () => {
    expect(escapeMarkup(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;')
  })

  test('only http(s) URLs can be put in an attribute', () => {
    expect(safeUrlAttr('https://a.example/?q=1&r="2"')).toBe('https://a.example/?q=1&amp;r=%222%22')
    expect(() => safeUrlAttr('javascript:alert(1)')).toThrow()
    expect(() => safeUrlAttr('data:text/html,<b>')).toThrow()
  })
})

describe('card figures', () => {
  test('are formatted with signs, one decimal for percentages and two for the profit factor', () => {
    expect(formatFigures(figures())).toEqual({ winRate: '55.0%', profitFactor: '1.24', totalReturn: '−12.3%', maxDrawdown: '−20.5%', trades: '1,234' })
    expect(formatFigures(figures({ profitFactor: 999, profitFactorCapped: true, totalReturnPct: 3 })).profitFactor).toBe('≥999')
  })

  test('with no trades there is nothing to show but the count', () => {
    expect(formatFigures(figures({ trades: 0, winRatePct: 0, profitFactor: 0, totalReturnPct: 0, maxDrawdownPct: 0 }))).toEqual({ winRate: '–', profitFactor: '–', totalReturn: '–', maxDrawdown: '–', trades: '0' })
  })

  test('the settings line names SL/TP, leverage, fee, universe and window in each language', () => {
    const s = { slPct: 10, tpPct: 8, leverage: 5, feePct: 0.05, topN: 10, from: '2024-01-01', to: null, timeframe: '1H' as const, maxBars: null }
    expect(settingsLine(s, 'en')).toBe('SL 10% · TP 8% · 5x · fee 0.05% · top 10 coins · 2024-01-01 – …')
    expect(settingsLine(s, 'ko')).toBe('SL 10% · TP 8% · 5x · 수수료 0.05% · 상위 10개 코인 · 2024-01-01 – …')
    expect(settingsLine({ ...s, timeframe: '4H' }, 'en')).toStartWith('4H · SL 10%')
  })
})

describe('the card SVG', () => {
  test('is 1200×630 and carries the name, the figures, the status and the disclaimer', () => {
    const svg = cardSvg(figures(), 'en')
    expect(svg).toContain('width="1200" height="630"')
    for (const s of ['BB Squeeze SHORT', '55.0%', '1.24', '−12.3%', '−20.5%', '1,234', 'Testing', 'not a promise']) expect(svg).toContain(s)
  })

  test('the Korean card has Korean labels and the Korean face', () => {
    const svg = cardSvg(figures(), 'ko')
    for (const s of ['볼린저 밴드 스퀴즈 숏', '승률', '수익 팩터', '최대 낙폭', '거래 수', '테스트 중', '숏', 'Noto Sans KR', '2025-01-01 ~ 2025-03-01']) expect(svg).toContain(s)
  })

  test('a name with markup stays text', () => {
    const svg = cardSvg(figures({ name: '</text><script>x</script>' }), 'en')
    expect(svg).not.toContain('<script>')
    expect(svg).toContain('&lt;/text&gt;&lt;script&gt;')
  })

  test('a ruined run says so, and on which day, in each language', () => {
    expect(cardSvg(figures(), 'en')).not.toContain('Ruined')
    const svg = cardSvg(figures({ ruinedOn: '2025-02-03', maxDrawdownPct: 100 }), 'en')
    expect(svg).toContain('Ruined on 2025-02-03: the equity reached zero')
    expect(svg).toContain('−100.0%')
    expect(cardSvg(figures({ ruinedOn: '2025-02-03', maxDrawdownPct: 100 }), 'ko')).toContain('2025-02-03 파산')
  })

  test('no trades: the sparkline box says so instead of drawing a line', () => {
    const svg = cardSvg(figures({ trades: 0, equityReturnPct: [] }), 'en')
    expect(svg).toContain('No trades in this window')
    expect(svg).not.toContain('<path')
  })
})

describe('sparklinePath', () => {
  test('spans the box, highest value at the top, lowest at the bottom, 0 % where it lies', () => {
    const { d, zeroY } = sparklinePath([0, 10, -10], 0, 0, 100, 20)
    expect(d).toBe('M0.0,10.0 L50.0,0.0 L100.0,20.0')
    expect(zeroY).toBe(10)
  })

  test('an all-positive curve keeps 0 % at the bottom edge', () => {
    expect(sparklinePath([1, 2], 0, 0, 10, 10).zeroY).toBe(10)
  })
})
