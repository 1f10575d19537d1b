import type { OptimizeResult } from '../api'
import { useI18n } from '../ui'

/** The SL × TP grid of profit factor: each cell's value written, shaded (PF 1 white, losses toward red, gains toward green), the best cell outlined and starred. */
export function Heatmap(props: { r: OptimizeResult }) {
  const { t, n } = useI18n()
  const { r } = props
  const vals = r.heatmap.values.flat().filter((v): v is number => v !== null && Number.isFinite(v))
  const lo = Math.min(...vals, 1)
  const hi = Math.max(...vals, 1)
  const shade = (v: number | null) => {
    if (v === null || !Number.isFinite(v)) return '#f1f5f9'
    // PF 1 is white; losses toward red, gains toward green
    if (v >= 1) return `rgba(21, 128, 61, ${(0.12 + (0.6 * (v - 1)) / Math.max(1e-9, hi - 1)).toFixed(2)})`
    return `rgba(185, 28, 28, ${(0.12 + (0.6 * (1 - v)) / Math.max(1e-9, 1 - lo)).toFixed(2)})`
  }
  return (
    <div class="table-wrap">
      <table class="heat" id="heatmap">
        <caption>{t('opt.heat')}</caption>
        <thead>
          <tr>
            <th scope="col">SL \ TP</th>
            {r.tp_values.map(tp => (
              <th scope="col" class="num">
                {tp} %
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {r.sl_values.map((sl, i) => (
            <tr>
              <th scope="row">{sl} %</th>
              {r.tp_values.map((tp, j) => {
                const v = r.heatmap.values[i]?.[j] ?? null
                const best = r.best !== null && r.best.sl_pct === sl && r.best.tp_pct === tp
                return (
                  <td class={`num${best ? ' best' : ''}`} style={{ background: shade(v) }}>
                    {v === null ? '—' : n(v)}
                    {best && <span class="best-mark"> ★ {t('opt.bestMark')}</span>}
                  </td>
                )
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
