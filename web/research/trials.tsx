/**
 * A sweep's trials: the heat map of the objective over two parameters (the best trial
 * outlined and starred), and the table of every trial of the ledger.
 */
import type { SweepTrialItem } from '../api'
import { DataTable, Pct, useI18n, type Column } from '../ui'

type Value = number | string

const order = (a: Value, b: Value) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b), 'en', { numeric: true }))

/**
 * The objective over the first two parameters (rows: the first, columns: the second); with
 * more parameters a cell shows the best trial among those sharing its two values. Shades run
 * from red (lowest) to green (highest); a cell without a value (too few trades) is grey.
 */
export function SweepHeatmap(props: { trials: readonly SweepTrialItem[]; names: readonly string[]; objective: string; bestTrial: number | null }) {
  const { t, n } = useI18n()
  const [a, b] = props.names
  if (a === undefined || b === undefined) return null
  const rows = [...new Set(props.trials.map(x => x.params[a]).filter((v): v is Value => v !== undefined))].sort(order)
  const cols = [...new Set(props.trials.map(x => x.params[b]).filter((v): v is Value => v !== undefined))].sort(order)
  const cell = new Map<string, SweepTrialItem>()
  for (const x of props.trials) {
    const key = `${x.params[a]}|${x.params[b]}`
    const cur = cell.get(key)
    if (!cur || (x.objective_value ?? -Infinity) > (cur.objective_value ?? -Infinity)) cell.set(key, x)
  }
  const vals = props.trials.map(x => x.objective_value).filter((v): v is number => v !== null && Number.isFinite(v))
  const lo = Math.min(...vals)
  const hi = Math.max(...vals)
  const shade = (v: number | null) => {
    if (v === null || !Number.isFinite(v)) return '#f1f5f9'
    const f = hi > lo ? (v - lo) / (hi - lo) : 1
    return f >= 0.5 ? `rgba(21, 128, 61, ${(0.12 + 1.1 * (f - 0.5)).toFixed(2)})` : `rgba(185, 28, 28, ${(0.12 + 1.1 * (0.5 - f)).toFixed(2)})`
  }
  return (
    <div class="table-wrap">
      <table class="heat" id="sweep-heatmap">
        <caption>{t('sw.heat', { o: props.objective, a, b })}</caption>
        <thead>
          <tr>
            <th scope="col">
              {a} \ {b}
            </th>
            {cols.map(c => (
              <th scope="col" class="num">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map(r => (
            <tr>
              <th scope="row">{r}</th>
              {cols.map(c => {
                const x = cell.get(`${r}|${c}`)
                const v = x?.objective_value ?? null
                const best = x !== undefined && x.trial === props.bestTrial
                return (
                  <td class={`num${best ? ' best' : ''}`} style={{ background: shade(v) }} data-trial={x?.trial}>
                    {x === undefined ? '' : v === null ? '—' : n(v)}
                    {best && <span class="best-mark"> ★ {t('opt.bestMark')}</span>}
                  </td>
                )
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <p class="hint">{t('sw.heatNote')}</p>
    </div>
  )
}

const metric = (x: SweepTrialItem, k: string): number | null => {
  const v = x.metrics[k]
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}

/** every trial: its number, parameters, trades, objective and the main metrics; best objective first */
export function TrialTable(props: { trials: readonly SweepTrialItem[]; names: readonly string[]; objective: string }) {
  const { t, n } = useI18n()
  const num = (v: number | null) => (v === null ? -Infinity : v)
  const columns: Column<SweepTrialItem>[] = [
    { key: 'trial', label: t('sw.trial'), value: x => x.trial, numeric: true },
    ...props.names.map(name => ({ key: `p:${name}`, label: name, value: (x: SweepTrialItem) => x.params[name] ?? '', numeric: true })),
    { key: 'trades', label: t('res.trades'), value: x => x.total_trades, numeric: true },
    { key: 'objective', label: `${t('sw.objective')} (${props.objective})`, value: x => num(x.objective_value), render: x => (x.objective_value === null ? '—' : n(x.objective_value, 3)), numeric: true },
    { key: 'sharpe', label: 'Sharpe', value: x => num(metric(x, 'sharpe_ratio')), render: x => n(metric(x, 'sharpe_ratio'), 2), numeric: true },
    { key: 'pf', label: t('res.pf'), value: x => num(metric(x, 'profit_factor')), render: x => n(metric(x, 'profit_factor'), 2), numeric: true },
    { key: 'ret', label: t('sw.ret'), value: x => num(metric(x, 'total_return_pct')), render: x => <Pct v={metric(x, 'total_return_pct')} />, numeric: true },
    { key: 'dd', label: t('res.mdd'), value: x => num(metric(x, 'max_drawdown_pct')), render: x => <Pct v={metric(x, 'max_drawdown_pct')} signed={false} />, numeric: true },
  ]
  return <DataTable id="sweep-trials" caption={t('sw.trials', { n: props.trials.length })} columns={columns} rows={props.trials} pageSize={20} initialSort={{ key: 'objective', desc: true }} />
}
