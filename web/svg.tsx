/**
 * Two small SVG figures lightweight-charts does not draw (their x axis is not time):
 * a percentile strip with the observed result marked, and the fan of Monte Carlo paths.
 */
import { COLORS } from './charts'
import { useI18n } from './ui'

const W = 640

/** p5–p95 whiskers, p25–p75 box, the median, and a marker (diamond + text) at the observed value */
export function McStrip(props: { id: string; title: string; pct: Record<string, number>; observed: number; observedLabel: string }) {
  const { n } = useI18n()
  const p = props.pct
  const xs = [p.p5, p.p95, props.observed].filter(Number.isFinite)
  const lo = Math.min(...xs)
  const hi = Math.max(...xs)
  const pad = (hi - lo) * 0.08 || 1
  const x = (v: number) => 20 + ((v - (lo - pad)) / (hi - lo + 2 * pad)) * (W - 40)
  const o = x(props.observed)
  return (
    <figure class="svg-fig" id={props.id}>
      <figcaption>{props.title}</figcaption>
      <svg viewBox={`0 0 ${W} 96`} role="img" aria-label={`${props.title}: p5 ${n(p.p5)}, p25 ${n(p.p25)}, p50 ${n(p.p50)}, p75 ${n(p.p75)}, p95 ${n(p.p95)}; ${props.observedLabel}`}>
        <line x1={x(p.p5)} x2={x(p.p95)} y1="40" y2="40" stroke="#475569" stroke-width="2" />
        <line x1={x(p.p5)} x2={x(p.p5)} y1="30" y2="50" stroke="#475569" stroke-width="2" />
        <line x1={x(p.p95)} x2={x(p.p95)} y1="30" y2="50" stroke="#475569" stroke-width="2" />
        <rect x={x(p.p25)} y="26" width={Math.max(1, x(p.p75) - x(p.p25))} height="28" fill="#cbd5e1" stroke="#475569" />
        <line x1={x(p.p50)} x2={x(p.p50)} y1="26" y2="54" stroke="#0f172a" stroke-width="3" />
        <text x={x(p.p5)} y="70" font-size="11" text-anchor="middle">p5 {n(p.p5, 1)}</text>
        <text x={x(p.p50)} y="70" font-size="11" text-anchor="middle">p50 {n(p.p50, 1)}</text>
        <text x={x(p.p95)} y="70" font-size="11" text-anchor="middle">p95 {n(p.p95, 1)}</text>
        <path d={`M ${o} 8 l 7 9 l -7 9 l -7 -9 z`} fill={COLORS.strategy} />
        <line x1={o} x2={o} y1="26" y2="58" stroke={COLORS.strategy} stroke-width="2" stroke-dasharray="3 2" />
        <text x={Math.min(W - 4, Math.max(4, o))} y="90" font-size="12" font-weight="bold" fill={COLORS.strategy} text-anchor={o > W * 0.7 ? 'end' : o < W * 0.3 ? 'start' : 'middle'}>
          ◆ {props.observedLabel}
        </text>
      </svg>
    </figure>
  )
}

/** the p5–p95 and p25–p75 bands of the resampled paths by trades taken, and the observed path */
export function BandsChart(props: { id: string; title: string; bands: Record<string, number[]> }) {
  const b = props.bands
  const steps = b.steps ?? []
  if (!b.p5 || !b.p95 || steps.length < 2) return null
  const all = [...b.p5, ...b.p95, ...(b.observed ?? [])].filter(Number.isFinite)
  const lo = Math.min(...all)
  const hi = Math.max(...all)
  const H = 200
  const x = (i: number) => 40 + (i / (steps.length - 1)) * (W - 60)
  const y = (v: number) => 10 + (1 - (v - lo) / (hi - lo || 1)) * (H - 30)
  const band = (a: number[], c: number[]) => `M ${a.map((v, i) => `${x(i)} ${y(v)}`).join(' L ')} L ${c.map((v, i) => `${x(c.length - 1 - i)} ${y(c[c.length - 1 - i])}`).join(' L ')} Z`
  const line = (a: number[]) => `M ${a.map((v, i) => `${x(i)} ${y(v)}`).join(' L ')}`
  return (
    <figure class="svg-fig" id={props.id}>
      <figcaption>{props.title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={props.title}>
        <path d={band(b.p5, b.p95)} fill="#e2e8f0" />
        {b.p25 && b.p75 && <path d={band(b.p25, b.p75)} fill="#cbd5e1" />}
        {b.p50 && <path d={line(b.p50)} fill="none" stroke="#475569" stroke-width="1.5" stroke-dasharray="5 3" />}
        {b.observed && <path d={line(b.observed)} fill="none" stroke={COLORS.strategy} stroke-width="2.5" />}
        {lo < 0 && hi > 0 && <line x1="40" x2={W - 20} y1={y(0)} y2={y(0)} stroke="#94a3b8" />}
        <text x="36" y={y(hi) + 4} font-size="11" text-anchor="end">{hi.toFixed(0)}%</text>
        <text x="36" y={y(lo)} font-size="11" text-anchor="end">{lo.toFixed(0)}%</text>
        <text x={W - 20} y={H - 4} font-size="11" text-anchor="end">{steps[steps.length - 1]}</text>
      </svg>
    </figure>
  )
}
