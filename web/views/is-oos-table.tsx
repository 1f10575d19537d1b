import type { ValidateResult } from '../api'
import { Pct, useI18n } from '../ui'

type Part = NonNullable<ValidateResult['oos']['is_metrics']>

/** The in-sample and out-of-sample parts of a validation side by side (— for a part the server left out). */
export function IsOosTable(props: { oos: ValidateResult['oos'] }) {
  const { t, n } = useI18n()
  const { oos } = props
  const partRows: { label: string; v: (m: Part) => preact.ComponentChildren }[] = [
    { label: t('res.range'), v: m => m.date_range },
    { label: t('res.trades'), v: m => m.total_trades },
    { label: t('res.winRate'), v: m => `${n(m.win_rate, 1)} %` },
    { label: t('res.pf'), v: m => n(m.profit_factor) },
    { label: t('tbl.avg'), v: m => <Pct v={m.avg_trade_pct} /> },
    { label: t('res.return'), v: m => <Pct v={m.total_return_pct_portfolio} /> },
    { label: t('res.mdd'), v: m => <Pct v={-m.max_drawdown_pct} /> },
    { label: t('res.sharpe'), v: m => n(m.sharpe_ratio) },
  ]
  return (
    <div class="table-wrap">
      <table id="isoos">
        <caption>{t('val.isoos')}</caption>
        <thead>
          <tr>
            <th scope="col" />
            <th scope="col">{t('val.is')}</th>
            <th scope="col">{t('val.oosCol')}</th>
          </tr>
        </thead>
        <tbody>
          {partRows.map(row => (
            <tr>
              <th scope="row">{row.label}</th>
              <td class="num">{oos.is_metrics ? row.v(oos.is_metrics) : '—'}</td>
              <td class="num">{oos.oos_metrics ? row.v(oos.oos_metrics) : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
