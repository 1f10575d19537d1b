/**
 * A walk-forward run's folds on a time line: per fold its in-sample part, the purge gap and
 * its out-of-sample part on one date axis (SVG, labelled for screen readers), and the table
 * of the chosen parameters with both sides' objective.
 */
import type { WalkForwardResult } from '../api'
import { DAY_MS, isoDay } from '../../src/time'
import { DataTable, useI18n, type Column } from '../ui'

type Fold = WalkForwardResult['folds'][number]
const dayMs = (d: string) => Date.parse(`${d}T00:00:00Z`)

export function FoldTimeline(props: { folds: readonly Fold[] }) {
  const { t } = useI18n()
  const folds = props.folds
  if (folds.length === 0) return null
  const start = Math.min(...folds.map(f => dayMs(f.in_sample.start_date)))
  const end = Math.max(...folds.map(f => dayMs(f.out_of_sample.end_date) + DAY_MS))
  const W = 760, left = 70, right = 10, rowH = 26
  const x = (ms: number) => left + ((ms - start) / Math.max(1, end - start)) * (W - left - right)
  const H = folds.length * rowH + 34
  return (
    <figure class="chart" id="wf-timeline">
      <figcaption>{t('wf.timeline')}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="img" aria-label={t('wf.timelineAria', { n: folds.length })}>
        {folds.map((f, i) => {
          const y = 8 + i * rowH
          const isA = x(dayMs(f.in_sample.start_date)), isB = x(dayMs(f.in_sample.end_date) + DAY_MS)
          const oosA = x(dayMs(f.out_of_sample.start_date)), oosB = x(dayMs(f.out_of_sample.end_date) + DAY_MS)
          return (
            <g data-fold={f.fold}>
              <title>{t('wf.foldTitle', { k: f.fold, is: `${f.in_sample.start_date} – ${f.in_sample.end_date}`, oos: `${f.out_of_sample.start_date} – ${f.out_of_sample.end_date}` })}</title>
              <text x={4} y={y + 14} font-size="12">
                {t('wf.fold', { k: f.fold })}
              </text>
              <rect class="wf-is" x={isA} y={y} width={Math.max(1, isB - isA)} height={18} fill="#93c5fd" stroke="#1d4ed8" />
              {oosA > isB + 0.5 && <line x1={isB} x2={oosA} y1={y + 9} y2={y + 9} stroke="#64748b" stroke-dasharray="3 3" />}
              <rect class="wf-oos" x={oosA} y={y} width={Math.max(1, oosB - oosA)} height={18} fill="#fdba74" stroke="#b45309" stroke-width="2" />
            </g>
          )
        })}
        <text x={left} y={H - 6} font-size="11">
          {isoDay(start)}
        </text>
        <text x={W - right} y={H - 6} font-size="11" text-anchor="end">
          {isoDay(end - DAY_MS)}
        </text>
      </svg>
      <ul class="legend">
        <li>
          <svg width="18" height="10" aria-hidden="true">
            <rect width="18" height="10" fill="#93c5fd" stroke="#1d4ed8" />
          </svg>
          {t('wf.is')}
        </li>
        <li>
          <svg width="18" height="10" aria-hidden="true">
            <rect width="18" height="10" fill="#fdba74" stroke="#b45309" stroke-width="2" />
          </svg>
          {t('wf.oos')}
        </li>
      </ul>
    </figure>
  )
}

export function FoldTable(props: { folds: readonly Fold[]; names: readonly string[] }) {
  const { t, n } = useI18n()
  const v = (x: number | null) => (x === null ? -Infinity : x)
  const trades = (m: Fold['in_sample']['metrics']) => (m && typeof m.total_trades === 'number' ? m.total_trades : 0)
  const columns: Column<Fold>[] = [
    { key: 'fold', label: t('wf.foldCol'), value: f => f.fold, numeric: true },
    { key: 'is', label: t('wf.is'), value: f => `${f.in_sample.start_date} – ${f.in_sample.end_date}` },
    { key: 'oos', label: t('wf.oos'), value: f => `${f.out_of_sample.start_date} – ${f.out_of_sample.end_date}` },
    ...props.names.map(name => ({ key: `p:${name}`, label: name, value: (f: Fold) => f.params?.[name] ?? '—' })),
    { key: 'isObj', label: t('wf.isObj'), value: f => v(f.in_sample.objective_value), render: f => (f.in_sample.objective_value === null ? '—' : n(f.in_sample.objective_value, 3)), numeric: true },
    { key: 'oosObj', label: t('wf.oosObj'), value: f => v(f.out_of_sample.objective_value), render: f => (f.out_of_sample.objective_value === null ? '—' : n(f.out_of_sample.objective_value, 3)), numeric: true },
    { key: 'oosTrades', label: t('wf.oosTrades'), value: f => trades(f.out_of_sample.metrics), numeric: true },
  ]
  return <DataTable id="wf-folds" caption={t('wf.folds')} columns={columns} rows={props.folds} />
}
