/** Compare: every registry strategy on the same coins (POST /simulate/compare), as a table and a bar chart of total return. */
import { api, type CompareResult } from '../api'
import { BarList } from '../charts'
import { TextField, SHOWN_FIELDS } from '../form'
import { compareBody } from '../requests'
import { useRun } from '../run'
import { DataTable, ErrorBox, Pct, useI18n } from '../ui'
import { RunButton } from './run-button'
import { RunScope } from './run-scope'
import { useRunOnSignal, type ViewProps } from './view'

type CmpRow = CompareResult['strategies'][number] & { direction?: string; status?: string; total_return_pct?: number; max_drawdown_pct?: number; sharpe_ratio?: number }

/** fees, funding and slippage together, in % of the notional the strategy traded */
const costsPct = (x: CmpRow) => x.costs.fees_pct + x.costs.funding_pct + x.costs.slippage_pct

export function CompareView(p: ViewProps) {
  const { t, n } = useI18n()
  const run = useRun<CompareResult>()
  useRunOnSignal(p.runSignal, () => void run.start(sig => api.compare(compareBody(p.s), sig)))
  const r = run.result
  const rows = (r?.strategies ?? []) as CmpRow[]
  return (
    <>
      <form
        class="panel"
        noValidate
        aria-label={t('view.compare')}
        onSubmit={e => {
          e.preventDefault()
          p.commit()
        }}
      >
        <div class="row-fields">
          <TextField k="sl" label={t('sl')} s={p.s} set={p.set} error={run.error} hint={t('default.plain', { v: 10 })} />
          <TextField k="tp" label={t('tp')} s={p.s} set={p.set} error={run.error} hint={t('default.plain', { v: 8 })} />
          <TextField k="bars" label={t('bars')} s={p.s} set={p.set} error={run.error} hint={t('default.plain', { v: 48 })} inputMode="numeric" />
          <TextField k="cmpN" api={['top_n']} label={t('cmp.topN')} s={p.s} set={p.set} error={run.error} inputMode="numeric" />
        </div>
        <RunButton label={t('cmp.run')} busy={run.busy} cancel={run.cancel} />
        <ErrorBox error={run.error} shownFields={SHOWN_FIELDS} />
      </form>
      {r && (
        <section class="results" id="results" aria-label={t('view.compare')}>
          <RunScope r={r} />
          <BarList
            id="compare-chart"
            title={t('cmp.chart')}
            items={[...rows].sort((a, b) => (b.total_return_pct ?? 0) - (a.total_return_pct ?? 0)).map(x => ({ label: x.name, value: x.total_return_pct ?? 0, text: `${(x.total_return_pct ?? 0) > 0 ? '+' : ''}${n(x.total_return_pct ?? 0)} %` }))}
          />
          <DataTable
            id="compare-table"
            caption={t('view.compare')}
            rows={rows}
            initialSort={{ key: 'ret', desc: true }}
            columns={[
              { key: 'name', label: t('strategy'), value: x => x.name },
              { key: 'dir', label: t('direction'), value: x => x.direction ?? '', render: x => (x.direction ? t(x.direction === 'long' ? 'long' : 'short') : '') },
              { key: 'status', label: t('strategy.status'), value: x => x.status ?? '' },
              { key: 'trades', label: t('res.trades'), value: x => x.total_trades, numeric: true },
              { key: 'wr', label: t('res.winRate'), value: x => x.win_rate, render: x => `${n(x.win_rate, 1)} %`, numeric: true },
              { key: 'pf', label: t('res.pf'), value: x => x.profit_factor, render: x => n(x.profit_factor), numeric: true },
              { key: 'ret', label: t('tbl.return'), value: x => x.total_return_pct ?? 0, render: x => <Pct v={x.total_return_pct} />, numeric: true },
              { key: 'mdd', label: t('res.mdd'), value: x => x.max_drawdown_pct ?? 0, render: x => <Pct v={x.max_drawdown_pct === undefined ? undefined : -x.max_drawdown_pct} />, numeric: true },
              { key: 'sharpe', label: t('res.sharpe'), value: x => x.sharpe_ratio ?? 0, render: x => n(x.sharpe_ratio), numeric: true },
              // where each strategy's edge went, what the bar rule would have said, and how far it scales (the strategy's costs, intrabar and capacity)
              {
                key: 'costs',
                label: t('cmp.costs'),
                value: x => costsPct(x),
                render: x => <span title={t('cmp.costsTitle', { fees: n(x.costs.fees_pct, 4), funding: n(x.costs.funding_pct, 4), slip: n(x.costs.slippage_pct, 4) })}>{n(costsPct(x), 4)} %</span>,
                numeric: true,
              },
              { key: 'barRet', label: t('cmp.barRet'), value: x => x.intrabar.rule_bias?.bar.total_return_pct ?? x.total_return_pct ?? 0, render: x => <Pct v={x.intrabar.rule_bias ? x.intrabar.rule_bias.bar.total_return_pct : x.total_return_pct} />, numeric: true },
              { key: 'halfEdge', label: t('cmp.halfEdge'), value: x => x.capacity.size_at_half_edge_usd ?? Infinity, render: x => (x.capacity.size_at_half_edge_usd === null ? '—' : `${n(x.capacity.size_at_half_edge_usd, 0)} USD`), numeric: true },
            ]}
          />
        </section>
      )}
    </>
  )
}
