/** What a /simulate or /backtest body shows: metrics, charts, verdicts, statistics, tables. */
import { useMemo, useState } from 'preact/hooks'
import type { RunResult, Trade } from './api'
import { BarList, COLORS, LineChart, type LineSpec } from './charts'
import { CostsAndCapacity } from './execution'
import type { Key } from './i18n'
import { IntrabarPanel } from './intrabar-results'
import { DataTable, Metric, Pct, useI18n, Verdict, type Column } from './ui'

type Period = RunResult['yearly_stats'][number]
type CoinRow = RunResult['coin_results'][number]

function Headline(props: { r: RunResult }) {
  const { t, n } = useI18n()
  const r = props.r
  const rec = r as RunResult & { annualized_return_pct?: number; funding_coverage_pct?: number | null; funding_events?: number; funding_events_real?: number }
  return (
    <dl class="metrics" id="headline">
      <Metric label={t('res.return')} id="m-return">
        <Pct v={r.total_return_pct_portfolio} />
      </Metric>
      <Metric label={t('res.returnUsd')}>
        {r.total_return_usd >= 0 ? '+' : '−'}${n(Math.abs(r.total_return_usd))}
      </Metric>
      {rec.annualized_return_pct !== undefined && (
        <Metric label={t('res.annual')}>
          <Pct v={rec.annualized_return_pct} />
        </Metric>
      )}
      <Metric label={t('res.trades')} id="m-trades">
        {r.total_trades.toLocaleString()}
      </Metric>
      <Metric label={t('res.winRate')}>{n(r.win_rate, 1)} %</Metric>
      <Metric label={t('res.pf')}>{n(r.profit_factor)}</Metric>
      <Metric label={t('res.mdd')} id="m-mdd">
        <Pct v={-r.max_drawdown_pct} />
        {r.ruined_at !== null && <small class="sub warn">{t('res.ruined', { d: r.ruined_at.slice(0, 10) })}</small>}
      </Metric>
      <Metric label={t('res.sharpe')}>{n(r.sharpe_ratio)}</Metric>
      <Metric label={t('res.sortino')}>{n(r.sortino_ratio)}</Metric>
      <Metric label={t('res.calmar')}>{n(r.calmar_ratio)}</Metric>
      <Metric label={t('res.expectancy')}>
        <Pct v={r.expectancy} />
      </Metric>
      <Metric label={t('res.fees')}>{n(r.total_fees_pct)} %</Metric>
      <Metric label={t('res.funding')}>
        {n(r.total_funding_pct)} %
        {typeof rec.funding_coverage_pct === 'number' && typeof rec.funding_events === 'number' && (
          <small class="sub">{t('res.fundingCoverage', { real: (rec.funding_events_real ?? 0).toLocaleString(), all: rec.funding_events.toLocaleString(), p: n(rec.funding_coverage_pct, 0) })}</small>
        )}
      </Metric>
      <Metric label={t('res.btc')}>
        <Pct v={r.btc_hold_return_pct} />
      </Metric>
      <Metric label={t('res.eth')}>
        <Pct v={r.eth_hold_return_pct} />
      </Metric>
      <Metric label={t('res.grade')}>
        <strong class="grade">{r.strategy_grade || '—'}</strong>
      </Metric>
      <Metric label={t('res.coins')}>{r.coins_used}</Metric>
      <Metric label={t('res.range')}>{r.data_range || '—'}</Metric>
    </dl>
  )
}

/** Which coins the run traded (as known then, or today's), and what today's coins would have made of the same run. */
function Survivorship(props: { r: RunResult }) {
  const { t, n } = useI18n()
  const r = props.r
  if (r.universe_mode === null || r.universe_mode === undefined) return null
  const sv = r.survivorship
  const list = (xs: string[]) => (xs.length ? xs.map(x => x.replace(/USDT$/, '')).join(', ') : '—')
  return (
    <section aria-labelledby="surv-h" id="survivorship" data-mode={r.universe_mode}>
      <h3 id="surv-h">{t('surv.title')}</h3>
      <p id="universe-mode">
        <strong>{r.universe_mode === 'point_in_time' ? t('asOf.then') : t('asOf.today')}</strong>
        {r.universe_mode === 'point_in_time' && r.rebalance && <span class="hint"> · {t('surv.rebalance', { r: t(`surv.rebalance.${r.rebalance}` as Key) })}</span>}
        {r.universe_mode === 'current' && <span class="hint"> · {t('surv.currentNote')}</span>}
      </p>
      {sv && (
        <>
          <table class="compare" id="surv-compare">
            <thead>
              <tr>
                <th />
                <th>{t('asOf.then')}</th>
                <th>{t('asOf.today')}</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <th>{t('tbl.return')}</th>
                <td><Pct v={r.total_return_pct} /></td>
                <td id="surv-today-return"><Pct v={sv.current_universe_result.total_return_pct} /></td>
              </tr>
              <tr>
                <th>{t('res.winRate')}</th>
                <td>{n(r.win_rate, 1)} %</td>
                <td>{n(sv.current_universe_result.win_rate, 1)} %</td>
              </tr>
              <tr>
                <th>{t('res.pf')}</th>
                <td>{n(r.profit_factor)}</td>
                <td>{n(sv.current_universe_result.profit_factor)}</td>
              </tr>
              <tr>
                <th>{t('res.trades')}</th>
                <td>{r.total_trades.toLocaleString()}</td>
                <td>{sv.current_universe_result.total_trades.toLocaleString()}</td>
              </tr>
            </tbody>
          </table>
          <dl class="stats" id="surv-coins">
            <div class="stat">
              <dt>{t('surv.todayNotThen', { n: sv.coins_today_not_then.length })}</dt>
              <dd><small>{list(sv.coins_today_not_then)}</small></dd>
            </div>
            <div class="stat">
              <dt>{t('surv.thenNotToday', { n: sv.coins_then_not_today.length })}</dt>
              <dd><small>{list(sv.coins_then_not_today)}</small></dd>
            </div>
            <div class="stat" id="surv-delisted">
              <dt>{t('surv.delisted', { n: sv.delisted_in_window.length })}</dt>
              <dd><small>{list(sv.delisted_in_window)}</small></dd>
            </div>
          </dl>
        </>
      )}
    </section>
  )
}

const AXES: Record<string, Key> = { trades: 'rel.trades', ruin: 'rel.ruin', sample: 'rel.sample', leverage: 'rel.leverage', diversification: 'rel.diversification' }

function Reliability(props: { r: RunResult }) {
  const { t, n } = useI18n()
  return (
    <section aria-labelledby="rel-h">
      <h3 id="rel-h">{t('rel.title')}</h3>
      <ul class="checks" id="reliability">
        {props.r.reliability_checks.map(c => (
          <li data-verdict={c.verdict}>
            <Verdict verdict={c.verdict} /> <strong>{AXES[c.axis_id] ? t(AXES[c.axis_id]) : c.axis_id}</strong>{' '}
            <span class="hint">{c.value !== null && c.threshold !== null ? t('rel.value', { v: n(c.value, Number.isInteger(c.value) ? 0 : 1), t: n(c.threshold, Number.isInteger(c.threshold) ? 0 : 1) }) : ''}</span>
            {c.message && <div class="check-msg">{c.message}</div>}
          </li>
        ))}
      </ul>
      {props.r.reliability_warning && <p class="warn">⚠ {props.r.reliability_warning}</p>}
    </section>
  )
}

function Statistics(props: { r: RunResult }) {
  const { t, n } = useI18n()
  const r = props.r
  const na = <span class="na">{t('stat.na')}</span>
  const rows: { label: Key; x: string; v: preact.ComponentChildren; more?: string }[] = [
    { label: 'stat.edge', x: t('stat.edge.x'), v: r.edge_p_value === null ? na : n(r.edge_p_value, 3) },
    { label: 'stat.dsr', x: t('stat.dsr.x', { n: r.deflated_sharpe_info?.n_trials ?? '—' }), v: r.deflated_sharpe === null ? na : n(r.deflated_sharpe, 3) },
    { label: 'stat.haircut', x: t('stat.haircut.x'), v: r.dsr_haircut_pct === null ? na : `${n(r.dsr_haircut_pct, 0)} %` },
    {
      label: 'stat.mc',
      x: t('stat.mc.x'),
      v: r.mc_p_value === null ? na : `p = ${n(r.mc_p_value, 3)}${r.mc_percentile === null ? '' : ` · ${t('stat.mcPct', { p: n(r.mc_percentile, 0) })}`}`,
    },
    { label: 'stat.wf', x: t('stat.wf.x'), more: r.walk_forward_details, v: r.walk_forward_consistency === null ? na : `${n(r.walk_forward_consistency * 100, 0)} %` },
    { label: 'stat.pfci', x: t('stat.pfci.x'), v: r.profit_factor_ci === null ? na : `${n(r.profit_factor_ci.low)} – ${n(r.profit_factor_ci.high)}` },
    { label: 'stat.shci', x: t('stat.shci.x'), v: r.sharpe_ci === null ? na : `${n(r.sharpe_ci.low)} – ${n(r.sharpe_ci.high)}` },
    { label: 'stat.alpha', x: t('stat.alpha.x'), v: r.jensens_alpha === null ? na : n(r.jensens_alpha, 3) },
    { label: 'stat.grade', x: t('stat.grade.x'), more: r.grade_details, v: <strong>{r.strategy_grade || '—'}</strong> },
  ]
  type Regime = { trades: number; win_rate: number; profit_factor: number; total_return_pct: number }
  const rp = (r.regime_performance ?? {}) as Record<string, unknown>
  // the regime rows are the objects; the record also carries its definition and the unlabelled count
  const regimes = Object.entries(rp).filter((e): e is [string, Regime] => typeof e[1] === 'object' && e[1] !== null && typeof (e[1] as Regime).trades === 'number')
  const definition = typeof rp.definition === 'string' ? rp.definition : ''
  const unlabelled = typeof rp.unlabelled_trades === 'number' ? rp.unlabelled_trades : 0
  return (
    <section aria-labelledby="stat-h">
      <h3 id="stat-h">{t('stat.title')}</h3>
      <dl class="stats" id="statistics">
        {rows.map(s => (
          <div class="stat">
            <dt>{t(s.label)}</dt>
            <dd>
              <span class="stat-value">{s.v}</span>
              <small class="stat-x">{s.x}</small>
              {s.more && (
                <details class="stat-more">
                  <summary>{t('stat.details')}</summary>
                  <small>{s.more}</small>
                </details>
              )}
            </dd>
          </div>
        ))}
      </dl>
      {regimes.length > 0 && (
        <DataTable
          id="regimes"
          caption={`${t('stat.regimes')}: ${t('stat.regimes.x')}`}
          note={`${definition}${unlabelled ? ` ${t('stat.unlabelled', { n: unlabelled })}` : ''}`}
          rows={regimes}
          columns={[
            { key: 'regime', label: t('tbl.regime'), value: e => e[0] },
            { key: 'trades', label: t('tbl.trades'), value: e => e[1].trades, numeric: true },
            { key: 'wr', label: t('res.winRate'), value: e => e[1].win_rate, render: e => `${n(e[1].win_rate, 1)} %`, numeric: true },
            { key: 'pf', label: t('res.pf'), value: e => e[1].profit_factor, render: e => n(e[1].profit_factor), numeric: true },
            { key: 'ret', label: t('tbl.return'), value: e => e[1].total_return_pct, render: e => <Pct v={e[1].total_return_pct} />, numeric: true },
          ]}
        />
      )}
    </section>
  )
}

function PeriodTable(props: { rows: Period[]; caption: string; id: string }) {
  const { t, n } = useI18n()
  const cols: Column<Period>[] = [
    { key: 'period', label: t('tbl.period'), value: r => r.period },
    { key: 'trades', label: t('tbl.trades'), value: r => r.trades, numeric: true },
    { key: 'wr', label: t('res.winRate'), value: r => r.win_rate, render: r => `${n(r.win_rate, 1)} %`, numeric: true },
    { key: 'pf', label: t('res.pf'), value: r => r.profit_factor, render: r => n(r.profit_factor), numeric: true },
    { key: 'ret', label: t('tbl.return'), value: r => r.return_pct, render: r => <Pct v={r.return_pct} />, numeric: true },
  ]
  return <DataTable id={props.id} caption={props.caption} rows={props.rows} columns={cols} pageSize={12} />
}

function CoinTable(props: { rows: CoinRow[]; coinLink: ((symbol: string) => string) | null }) {
  const { t, n } = useI18n()
  const link = props.coinLink
  const cols: Column<CoinRow>[] = [
    { key: 'symbol', label: t('tbl.symbol'), value: r => r.symbol, render: r => (link ? <a href={link(r.symbol)} title={t('tbl.coinLink')}>{r.symbol}</a> : r.symbol) },
    { key: 'trades', label: t('tbl.trades'), value: r => r.trades, numeric: true },
    { key: 'wins', label: t('tbl.wins'), value: r => r.wins, numeric: true },
    { key: 'losses', label: t('tbl.losses'), value: r => r.losses, numeric: true },
    { key: 'wr', label: t('res.winRate'), value: r => r.win_rate, render: r => `${n(r.win_rate, 1)} %`, numeric: true },
    { key: 'pf', label: t('res.pf'), value: r => r.profit_factor, render: r => n(r.profit_factor), numeric: true },
    { key: 'ret', label: t('tbl.return'), value: r => r.total_return_pct, render: r => <Pct v={r.total_return_pct} />, numeric: true },
    { key: 'avg', label: t('tbl.avg'), value: r => r.avg_pnl_pct, render: r => <Pct v={r.avg_pnl_pct} />, numeric: true },
    { key: 'tpsl', label: t('tbl.tpsl'), value: r => r.tp_count, render: r => `${r.tp_count} / ${r.sl_count} / ${r.timeout_count}`, numeric: true },
    {
      key: 'exits',
      label: t('tbl.otherExits'),
      value: r => r.trailing_count + r.signal_count + r.liquidation_count + r.end_of_data_count + r.delisted_count,
      render: r => `${r.trailing_count} / ${r.signal_count} / ${r.liquidation_count} / ${r.end_of_data_count} / ${r.delisted_count}`,
      numeric: true,
    },
  ]
  return <DataTable id="coins" caption={t('tbl.coins')} rows={props.rows} columns={cols} pageSize={20} initialSort={{ key: 'ret', desc: true }} />
}

const time = (iso: string) => iso.replace('T', ' ').replace(/:00Z$/, '').replace(/Z$/, '')

export function TradesTable(props: { trades: readonly Trade[]; id?: string }) {
  const { t, n } = useI18n()
  const cols: Column<Trade>[] = [
    { key: 'symbol', label: t('tbl.symbol'), value: r => r.symbol },
    { key: 'dir', label: t('tr.dir'), value: r => r.direction, render: r => t(r.direction === 'long' ? 'long' : 'short') },
    { key: 'entry', label: t('tr.entry'), value: r => r.entry_time, render: r => time(r.entry_time) },
    { key: 'exit', label: t('tr.exit'), value: r => r.exit_time, render: r => time(r.exit_time) },
    { key: 'ep', label: t('tr.entryPrice'), value: r => r.entry_price, render: r => r.entry_price.toPrecision(6), numeric: true },
    { key: 'xp', label: t('tr.exitPrice'), value: r => r.exit_price, render: r => r.exit_price.toPrecision(6), numeric: true },
    { key: 'bars', label: t('tr.bars'), value: r => r.bars_held, numeric: true },
    { key: 'reason', label: t('tr.reason'), value: r => r.exit_reason },
    { key: 'pnl', label: t('tr.pnl'), value: r => r.pnl_pct, render: r => <Pct v={r.pnl_pct} />, numeric: true },
    { key: 'usd', label: t('tr.pnlUsd'), value: r => r.pnl_usd, render: r => n(r.pnl_usd), numeric: true },
    { key: 'fee', label: t('tr.fee'), value: r => r.fee_pct, render: r => n(r.fee_pct, 3), numeric: true },
    { key: 'fund', label: t('tr.funding'), value: r => r.funding_pct, render: r => n(r.funding_pct, 3), numeric: true },
  ]
  return <DataTable id={props.id ?? 'trades'} caption={t('tbl.trades')} rows={props.trades} columns={cols} pageSize={25} initialSort={{ key: 'entry', desc: true }} />
}

export function Results(props: { r: RunResult; shareUrl: string | null; coinLink?: ((symbol: string) => string) | null }) {
  const { t } = useI18n()
  const r = props.r
  const [shareMsg, setShareMsg] = useState('')
  const equityLines = useMemo<LineSpec[]>(
    () => [
      { name: t('chart.strategy'), color: COLORS.strategy, style: 'solid', data: r.equity_curve.map(p => ({ time: p.t, value: p.return_pct })) },
      { name: t('res.btc'), color: COLORS.btc, style: 'dashed', data: r.btc_hold_curve.map(p => ({ time: p.t, value: p.return_pct })) },
      { name: t('res.eth'), color: COLORS.eth, style: 'dotted', data: r.eth_hold_curve.map(p => ({ time: p.t, value: p.return_pct })) },
    ],
    [r, t],
  )
  const ddLines = useMemo<LineSpec[]>(() => [{ name: t('chart.drawdown'), color: COLORS.drawdown, style: 'solid', data: r.equity_curve.map(p => ({ time: p.t, value: -p.drawdown_pct })) }], [r, t])
  if (!r.executed) {
    return (
      <section class="results" aria-labelledby="res-h">
        <h2 id="res-h">{t('res.title')}</h2>
        <div class="error-box" role="alert" id="invalid">
          <p>⚠ {t('builder.invalid')}</p>
          <ul>
            {r.validation_errors.map(e => (
              <li>{e}</li>
            ))}
          </ul>
        </div>
      </section>
    )
  }
  const share = async () => {
    if (!props.shareUrl) return
    try {
      await navigator.clipboard.writeText(props.shareUrl)
      setShareMsg(t('share.copied', { u: props.shareUrl }))
    } catch {
      setShareMsg(t('share.manual', { u: props.shareUrl }))
    }
  }
  return (
    <section class="results" aria-labelledby="res-h" id="results" data-hash={r.result_hash ?? ''}>
      <div class="results-head">
        <h2 id="res-h">
          {t('res.title')}: {r.strategy_name ?? r.name}
        </h2>
        <div class="actions">
          {r.result_hash && r.total_trades > 0 && (
            <a class="button secondary" href={`/export/csv?hash=${r.result_hash}`} download id="csv">
              {t('csv')}
            </a>
          )}
          {props.shareUrl && (
            <button type="button" class="secondary" onClick={share} id="share">
              {t('share')}
            </button>
          )}
        </div>
      </div>
      {shareMsg && (
        <p class="hint" role="status" id="share-msg">
          {shareMsg}
        </p>
      )}
      <p class="hint">{t('res.compute', { ms: r.compute_time_ms })} · {t('res.costs')}</p>
      {r.warnings.map(w => (
        <p class="warn">⚠ {w}</p>
      ))}
      <Headline r={r} />
      <IntrabarPanel r={r} />
      <CostsAndCapacity r={r} />
      {r.total_trades === 0 ? (
        <p class="empty" id="zero-trades">
          {t('res.zero')}
        </p>
      ) : (
        <>
          <LineChart id="equity-chart" title={t('chart.equity')} lines={equityLines} />
          <LineChart id="drawdown-chart" title={t('chart.drawdown')} lines={ddLines} area height={160} />
        </>
      )}
      <Survivorship r={r} />
      <Reliability r={r} />
      {r.total_trades > 0 && (
        <>
          <Statistics r={r} />
          <div class="two-col">
            <PeriodTable id="yearly" rows={r.yearly_stats} caption={t('tbl.yearly')} />
            <PeriodTable id="monthly" rows={r.monthly_stats} caption={t('tbl.monthly')} />
          </div>
          <BarList
            id="pnl-distribution"
            title={t('res.distribution')}
            items={r.pnl_buckets.map((label, i) => ({ label, value: (r.pnl_distribution[i] ?? 0) * (label.startsWith('-') || label.startsWith('< -') ? -1 : 1), text: String(r.pnl_distribution[i] ?? 0) }))}
          />
          <CoinTable rows={r.coin_results} coinLink={props.coinLink ?? null} />
          {r.trades.length < r.total_trades && <p class="hint">{t('tr.limited', { n: r.trades.length })}</p>}
          <TradesTable trades={r.trades} />
        </>
      )}
    </section>
  )
}
