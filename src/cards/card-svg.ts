/**
 * The 1200×630 card as SVG: name and direction, the settings line, five figures, the
 * equity sparkline, the research status and the disclaimer. Pure: figures in, text out;
 * every value is escaped, so nothing a caller sends can become markup.
 */
import { dataSpanText, formatFigures, nameIn, settingsLine, type CardFigures } from './card-figures'
import { escapeMarkup as esc } from './escape'
import { KOREAN_FAMILY, LATIN_FAMILY } from './fonts'
import { LABELS, type Lang } from './labels'

export const CARD_WIDTH = 1200
export const CARD_HEIGHT = 630

const COLORS = {
  background: '#0f172a',
  panel: '#16213a',
  text: '#f8fafc',
  muted: '#94a3b8',
  long: '#22c55e',
  short: '#f43f5e',
  up: '#22c55e',
  down: '#f43f5e',
  zero: '#334155',
  status: { verified: '#22c55e', testing: '#f59e0b', research: '#64748b', preset: '#38bdf8' },
} as const

/** The sparkline's path through the points, scaled into the box (y up), and where 0 % lies. */
export function sparklinePath(values: readonly number[], x: number, y: number, w: number, h: number): { d: string; zeroY: number } {
  if (values.length === 0) return { d: '', zeroY: y + h / 2 }
  const lo = Math.min(0, ...values)
  const hi = Math.max(0, ...values)
  const span = hi - lo || 1
  const sy = (v: number) => y + h - ((v - lo) / span) * h
  const step = values.length > 1 ? w / (values.length - 1) : 0
  const pts = values.map((v, i) => `${(x + i * step).toFixed(1)},${sy(v).toFixed(1)}`)
  if (values.length === 1) pts.push(`${(x + w).toFixed(1)},${sy(values[0]).toFixed(1)}`)
  return { d: `M${pts.join(' L')}`, zeroY: sy(0) }
}

/** a figure's font size: 42 px, smaller for long values (+1,234.5%) so they stay inside their box */
const valueSize = (value: string) => Math.min(42, Math.floor(180 / (value.length * 0.6)))

export function cardSvg(f: CardFigures, lang: Lang): string {
  const L = LABELS[lang]
  const font = lang === 'ko' ? `${LATIN_FAMILY}, '${KOREAN_FAMILY}'` : LATIN_FAMILY
  const text = lang === 'ko' ? `'${KOREAN_FAMILY}', ${LATIN_FAMILY}` : LATIN_FAMILY
  const v = formatFigures(f)
  const dirColor = COLORS[f.direction]
  const statusColor = COLORS.status[f.status]
  const statusLabel = L.status[f.status]
  const dirLabel = L.direction[f.direction]

  const figures: [string, string, string][] = [
    [L.winRate, v.winRate, COLORS.text],
    [L.profitFactor, v.profitFactor, f.trades === 0 ? COLORS.text : f.profitFactor >= 1 ? COLORS.up : COLORS.down],
    [L.totalReturn, v.totalReturn, f.trades === 0 ? COLORS.text : f.totalReturnPct >= 0 ? COLORS.up : COLORS.down],
    [L.maxDrawdown, v.maxDrawdown, COLORS.text],
    [L.trades, v.trades, COLORS.text],
  ]
  const boxW = 206, gap = 12, boxY = 236, boxH = 124
  const boxes = figures
    .map(([label, value, color], i) => {
      const bx = 60 + i * (boxW + gap)
      return `<rect x="${bx}" y="${boxY}" width="${boxW}" height="${boxH}" rx="14" fill="${COLORS.panel}"/>
<text x="${bx + 20}" y="${boxY + 42}" font-family="${text}" font-size="22" fill="${COLORS.muted}">${esc(label)}</text>
<text x="${bx + 20}" y="${boxY + 98}" font-family="${font}" font-weight="700" font-size="${valueSize(value)}" fill="${color}">${esc(value)}</text>`
    })
    .join('\n')

  const spark = { x: 60, y: 392, w: 1080, h: 132 }
  const line = sparklinePath(f.equityReturnPct, spark.x, spark.y + 8, spark.w, spark.h - 16)
  const last = f.equityReturnPct.at(-1) ?? 0
  const sparkBody =
    f.trades === 0 || line.d === ''
      ? `<text x="${spark.x + spark.w / 2}" y="${spark.y + spark.h / 2 + 10}" text-anchor="middle" font-family="${text}" font-size="28" fill="${COLORS.muted}">${esc(L.noTrades)}</text>`
      : `<line x1="${spark.x}" x2="${spark.x + spark.w}" y1="${line.zeroY.toFixed(1)}" y2="${line.zeroY.toFixed(1)}" stroke="${COLORS.zero}" stroke-width="2" stroke-dasharray="6 6"/>
<path d="${line.d}" fill="none" stroke="${last >= 0 ? COLORS.up : COLORS.down}" stroke-width="4" stroke-linejoin="round" stroke-linecap="round"/>` +
        (f.ruinedOn === null
          ? ''
          : `\n<text x="${spark.x + 20}" y="${spark.y + 34}" font-family="${text}" font-weight="700" font-size="24" fill="${COLORS.down}">${esc(L.ruinedOn(f.ruinedOn))}</text>`)

  const pillW = (label: string) => 40 + [...label].reduce((w, c) => w + (c.charCodeAt(0) > 0x2e80 ? 25 : 15), 0)
  const statusW = pillW(statusLabel)
  const dirW = pillW(dirLabel)
  const dirX = 1140 - statusW - 16 - dirW
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${CARD_WIDTH}" height="${CARD_HEIGHT}" viewBox="0 0 ${CARD_WIDTH} ${CARD_HEIGHT}">
<rect width="${CARD_WIDTH}" height="${CARD_HEIGHT}" fill="${COLORS.background}"/>
<text x="60" y="74" font-family="${LATIN_FAMILY}" font-weight="700" font-size="28" fill="${COLORS.muted}">perpsim</text>
<rect x="${dirX}" y="44" width="${dirW}" height="44" rx="22" fill="${dirColor}"/>
<text x="${dirX + dirW / 2}" y="74" text-anchor="middle" font-family="${text}" font-weight="700" font-size="24" fill="${COLORS.background}">${esc(dirLabel)}</text>
<rect x="${1140 - statusW}" y="44" width="${statusW}" height="44" rx="22" fill="none" stroke="${statusColor}" stroke-width="2"/>
<text x="${1140 - statusW / 2}" y="74" text-anchor="middle" font-family="${text}" font-weight="700" font-size="24" fill="${statusColor}">${esc(statusLabel)}</text>
<text x="60" y="156" font-family="${text}" font-weight="700" font-size="60" fill="${COLORS.text}">${esc(nameIn(f, lang))}</text>
<text x="60" y="204" font-family="${text}" font-size="26" fill="${COLORS.muted}">${esc(settingsLine(f.settings, lang))}</text>
${boxes}
<rect x="${spark.x}" y="${spark.y}" width="${spark.w}" height="${spark.h}" rx="14" fill="${COLORS.panel}"/>
${sparkBody}
<text x="60" y="580" font-family="${text}" font-size="22" fill="${COLORS.muted}">${esc(L.disclaimer)}</text>
<text x="1140" y="580" text-anchor="end" font-family="${LATIN_FAMILY}" font-size="22" fill="${COLORS.muted}">${esc(dataSpanText(f, lang))}</text>
</svg>`
}
