/** The five views: simulate, coin, compare, validate, optimize. */
import { useEffect, useMemo } from 'preact/hooks'
import { api, type CoinSimResult, type CompareResult, type Ohlcv, type OptimizeResult, type RunResult, type ValidateResult } from './api'
import { BarList, CandleChart, COLORS, type Overlay, type TradeMark } from './charts'
import { CostFields, ExitFields, StrategyPicker, TextField, TIMEFRAME_HOURS, UniverseFields, WindowFields, SHOWN_FIELDS, type Meta, err } from './form'

/** candles the coin view draws */
const COIN_BARS = 2000
import { coinBody, compareBody, optimizeBody, rowErrors, shareLink, simulatePlan, validateBody } from './requests'
import { Results, TradesTable } from './results'
import { useRun } from './run'
import type { SetSettings, Settings } from './settings'
import { described, ErrorBox, Field, Pct, Progress, useI18n, DataTable } from './ui'
import { McStrip, BandsChart } from './svg'

export interface ViewProps {
  s: Settings
  set: SetSettings
  meta: Meta
  /** push the settings to the address bar and run */
  commit: () => void
  /** bumps when this view must run the settings it has (a commit, a loaded link, back/forward) */
  runSignal: number
  onPreset: (id: string) => void
}

/** the coin view for one coin of the run in the address (its strategy, exits and window) */
function coinLink(symbol: string): string {
  const q = new URLSearchParams(location.search)
  q.set('view', 'coin')
  q.set('symbol', symbol)
  return `/?${q}`
}

function RunButton(props: { label: string; busy: boolean; cancel: () => void }) {
  return (
    <div class="run-bar">
      <button type="submit" class="primary" disabled={props.busy} id="run">
        {props.label}
      </button>
      {props.busy && <Progress onCancel={props.cancel} />}
    </div>
  )
}

/** data window, coins used and the research paths' coin limit when it bound */
function RunScope(props: { r: { data_range: string; coins_used: number; run_cap: number | null } }) {
  const { t } = useI18n()
  return (
    <p class="hint">
      {t('res.range')}: {props.r.data_range} · {t('res.coins')}: {props.r.coins_used}
      {props.r.run_cap !== null && <> · ⚠ {t('res.runCap', { n: props.r.run_cap })}</>}
    </p>
  )
}

function useRunOnSignal(signal: number, go: () => void) {
  useEffect(() => {
    if (signal > 0) go()
  }, [signal])
}

export function SimulateView(p: ViewProps) {
  const { t } = useI18n()
  const run = useRun<RunResult>()
  useRunOnSignal(p.runSignal, () => {
    const plan = simulatePlan(p.s, p.meta)
    void run.start(sig => (plan.route === 'simulate' ? api.simulate(plan.body, sig) : api.backtest(plan.body, sig)))
  })
  const r = run.result
  const invalid = r && !r.executed ? rowErrors(r.validation_errors) : { rows: new Map<number, string[]>(), rest: [] }
  const builderTreeError = err(run.error, 'strategy') ?? null
  const symbolsRoute = p.s.mode === 'builder' || p.s.universe === 'symbols'
  const share = r && r.executed ? (shareLink(p.s, r, location.origin) ?? location.href) : null
  return (
    <>
      <form
        class="panel"
        noValidate
        aria-label={t('view.simulate')}
        onSubmit={e => {
          e.preventDefault()
          p.commit()
        }}
      >
        <StrategyPicker s={p.s} set={p.set} meta={p.meta} error={run.error} allowBuilder onPreset={p.onPreset} rowErrors={invalid.rows} treeErrors={invalid.rest} />
        {builderTreeError && p.s.mode === 'builder' && <p class="error-text">⚠ {builderTreeError.msg}</p>}
        <ExitFields s={p.s} set={p.set} meta={p.meta} error={run.error} />
        <CostFields s={p.s} set={p.set} error={run.error} feeFixed={symbolsRoute} />
        <UniverseFields s={p.s} set={p.set} error={run.error} allowSymbols />
        <WindowFields s={p.s} set={p.set} error={run.error} />
        <RunButton label={t('run')} busy={run.busy} cancel={run.cancel} />
        <ErrorBox error={run.error} shownFields={SHOWN_FIELDS} />
      </form>
      {r ? <Results r={r} shareUrl={share} coinLink={p.s.mode === 'registry' ? coinLink : null} /> : !run.busy && <p class="hint empty">{t('empty.hint')}</p>}
    </>
  )
}

export function CoinView(p: ViewProps) {
  const { t } = useI18n()
  const run = useRun<{ sim: CoinSimResult; bars: Ohlcv }>()
  useRunOnSignal(p.runSignal, () => {
    const body = coinBody(p.s, p.meta)
    void run.start(async sig => {
      const sim = await api.simulateCoin(body, sig)
      // the 2,000 bars that end at the run's last day (the newest when no end is set)
      let offset = 0
      const end = body.end_date ? Date.parse(`${body.end_date}T23:59:59Z`) / 1000 : null
      if (end !== null) {
        const last = (await api.ohlcv(body.symbol, p.s.tf, 1, 0, sig)).data[0]?.t ?? end
        offset = Math.max(0, Math.floor((last - end) / (3600 * (TIMEFRAME_HOURS[p.s.tf as keyof typeof TIMEFRAME_HOURS] ?? 1))))
      }
      const bars = await api.ohlcv(body.symbol, p.s.tf, COIN_BARS, offset, sig)
      return { sim, bars }
    })
  })
  const r = run.result
  const view = useMemo(() => {
    if (!r) return null
    const d = r.bars.data
    const overlays: Overlay[] = [
      { name: 'BB upper', color: COLORS.band, style: 'dotted', values: d.map(b => b.bb_upper) },
      { name: 'BB lower', color: COLORS.band, style: 'dotted', values: d.map(b => b.bb_lower) },
      { name: 'EMA 20', color: COLORS.ema20, style: 'solid', values: d.map(b => b.ema20) },
      { name: 'EMA 50', color: COLORS.ema50, style: 'dashed', values: d.map(b => b.ema50) },
    ]
    const first = d.length ? d[0].t : 0
    const marks: TradeMark[] = r.sim.trades.map(tr => ({ entry: Date.parse(tr.entry_time) / 1000, exit: Date.parse(tr.exit_time) / 1000, long: tr.direction === 'long', win: tr.pnl_pct > 0 }))
    const last = d.length ? d[d.length - 1].t : 0
    const outside = marks.filter(m => m.exit < first || m.entry > last).length
    return { overlays, marks, outside }
  }, [r])
  const symErr = err(run.error, 'symbol')
  return (
    <>
      <form
        class="panel"
        noValidate
        aria-label={t('view.coin')}
        onSubmit={e => {
          e.preventDefault()
          p.commit()
        }}
      >
        <div class="row-fields">
          <Field id="f-symbol" label={t('coin.symbol')} error={symErr}>
            <input {...described('f-symbol', symErr)} list="symbols-list" value={p.s.symbol} onInput={e => p.set({ symbol: (e.target as HTMLInputElement).value })} />
            <datalist id="symbols-list">
              {p.meta.symbols.map(x => (
                <option value={x} />
              ))}
            </datalist>
          </Field>
        </div>
        <StrategyPicker s={{ ...p.s, mode: 'registry' }} set={p.set} meta={p.meta} error={run.error} allowBuilder={false} onPreset={p.onPreset} rowErrors={new Map()} treeErrors={[]} />
        <ExitFields s={{ ...p.s, mode: 'registry' }} set={p.set} meta={p.meta} error={run.error} />
        <CostFields s={p.s} set={p.set} error={run.error} />
        <WindowFields s={p.s} set={p.set} error={run.error} comp={false} />
        <RunButton label={t('coin.run')} busy={run.busy} cancel={run.cancel} />
        <ErrorBox error={run.error} shownFields={SHOWN_FIELDS} />
      </form>
      {r && view && (
        <section class="results" id="results" aria-label={r.sim.symbol}>
          <dl class="metrics">
            <div class="metric">
              <dt>{t('res.trades')}</dt>
              <dd>{r.sim.total_trades}</dd>
            </div>
            <div class="metric">
              <dt>{t('res.winRate')}</dt>
              <dd>{r.sim.win_rate.toFixed(1)} %</dd>
            </div>
            <div class="metric">
              <dt>{t('res.pf')}</dt>
              <dd>{r.sim.profit_factor.toFixed(2)}</dd>
            </div>
            <div class="metric">
              <dt>{t('tbl.return')}</dt>
              <dd>
                <Pct v={r.sim.total_return_pct} />
              </dd>
            </div>
            <div class="metric">
              <dt>{t('res.mdd')}</dt>
              <dd>
                <Pct v={-r.sim.max_drawdown_pct} />
              </dd>
            </div>
          </dl>
          <CandleChart id="coin-chart" title={t('coin.chart', { s: r.bars.symbol })} legend={t('coin.legend')} candles={r.bars.data} overlays={view.overlays} marks={view.marks} />
          {view.outside > 0 && <p class="hint">{t('coin.outside', { n: view.outside, b: r.bars.data.length })}</p>}
          {r.sim.total_trades === 0 ? <p class="empty">{t('res.zero')}</p> : <TradesTable trades={r.sim.trades} id="coin-trades" />}
        </section>
      )}
    </>
  )
}

type CmpRow = CompareResult['strategies'][number] & { direction?: string; status?: string; total_return_pct?: number; max_drawdown_pct?: number; sharpe_ratio?: number }

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
            ]}
          />
        </section>
      )}
    </>
  )
}

type Part = NonNullable<ValidateResult['oos']['is_metrics']>

export function ValidateView(p: ViewProps) {
  const { t, n } = useI18n()
  const run = useRun<ValidateResult>()
  useRunOnSignal(p.runSignal, () => void run.start(sig => api.validate(validateBody(p.s), sig)))
  const r = run.result
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
  const mc = r?.monte_carlo
  return (
    <>
      <form
        class="panel"
        noValidate
        aria-label={t('view.validate')}
        onSubmit={e => {
          e.preventDefault()
          p.commit()
        }}
      >
        <StrategyPicker s={p.s} set={p.set} meta={p.meta} error={run.error} allowBuilder onPreset={p.onPreset} rowErrors={new Map()} treeErrors={[]} />
        <ExitFields s={p.s} set={p.set} meta={p.meta} error={run.error} />
        <CostFields s={p.s} set={p.set} error={run.error} />
        <UniverseFields s={p.s} set={p.set} error={run.error} allowSymbols={false} />
        <WindowFields s={p.s} set={p.set} error={run.error} />
        <div class="row-fields">
          <TextField k="oos" label={t('val.oos')} s={p.s} set={p.set} error={run.error} />
          <TextField k="sims" label={t('val.sims')} s={p.s} set={p.set} error={run.error} inputMode="numeric" />
        </div>
        <RunButton label={t('val.run')} busy={run.busy} cancel={run.cancel} />
        <ErrorBox error={run.error} shownFields={SHOWN_FIELDS} />
      </form>
      {r && mc && (
        <section class="results" id="results" aria-label={t('view.validate')}>
          <h2>
            {r.strategy_name} · {t('val.verdict')}:{' '}
            <span class={`badge badge-${r.oos.verdict === 'robust' ? 'pass' : r.oos.verdict === 'insufficient_data' || r.oos.verdict === 'no_in_sample_edge' ? 'not_evaluated' : 'fail'}`} id="oos-verdict">
              {t(`oos.${r.oos.verdict}`)}
            </span>
          </h2>
          <RunScope r={r} />
          <p>{r.oos.message}</p>
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
                    <td class="num">{r.oos.is_metrics ? row.v(r.oos.is_metrics) : '—'}</td>
                    <td class="num">{r.oos.oos_metrics ? row.v(r.oos.oos_metrics) : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {mc.final_return_pct ? (
            <McStrip id="mc-strip" title={t('val.mc')} pct={mc.final_return_pct} observed={mc.observed.final_return_pct} observedLabel={t('val.observed', { v: `${n(mc.observed.final_return_pct)} %` })} />
          ) : (
            <p class="empty">{t('res.zero')}</p>
          )}
          {mc.probability_positive !== null && <p>{t('val.probPos', { p: `${n(mc.probability_positive * 100, 1)} %` })}</p>}
          {mc.equity_bands.steps.length > 1 && <BandsChart id="mc-bands" title={t('val.bands')} bands={mc.equity_bands as unknown as Record<string, number[]>} />}
          {mc.random_entry.null_total_return_pct && (
            <McStrip
              id="null-strip"
              title={`${t('val.null')} · p = ${mc.random_entry.p_value === null ? '—' : n(mc.random_entry.p_value, 3)}`}
              pct={mc.random_entry.null_total_return_pct}
              observed={mc.random_entry.observed_total_return_pct}
              observedLabel={t('val.observed', { v: `${n(mc.random_entry.observed_total_return_pct)} %` })}
            />
          )}
        </section>
      )}
    </>
  )
}

export function OptimizeView(p: ViewProps) {
  const { t, n } = useI18n()
  const run = useRun<OptimizeResult>()
  useRunOnSignal(p.runSignal, () => void run.start(sig => api.optimize(optimizeBody(p.s), sig)))
  const r = run.result
  const vals = r?.heatmap.values.flat().filter((v): v is number => v !== null && Number.isFinite(v)) ?? []
  const lo = Math.min(...vals, 1)
  const hi = Math.max(...vals, 1)
  const shade = (v: number | null) => {
    if (v === null || !Number.isFinite(v)) return '#f1f5f9'
    // PF 1 is white; losses toward red, gains toward green
    if (v >= 1) return `rgba(21, 128, 61, ${(0.12 + (0.6 * (v - 1)) / Math.max(1e-9, hi - 1)).toFixed(2)})`
    return `rgba(185, 28, 28, ${(0.12 + (0.6 * (1 - v)) / Math.max(1e-9, 1 - lo)).toFixed(2)})`
  }
  return (
    <>
      <form
        class="panel"
        noValidate
        aria-label={t('view.optimize')}
        onSubmit={e => {
          e.preventDefault()
          p.commit()
        }}
      >
        <StrategyPicker s={p.s} set={p.set} meta={p.meta} error={run.error} allowBuilder onPreset={p.onPreset} rowErrors={new Map()} treeErrors={[]} />
        <div class="row-fields">
          <TextField k="slGrid" label={t('opt.sl')} s={p.s} set={p.set} error={run.error} inputMode="text" />
          <TextField k="tpGrid" label={t('opt.tp')} s={p.s} set={p.set} error={run.error} inputMode="text" />
          <TextField k="bars" label={t('bars')} s={p.s} set={p.set} error={run.error} inputMode="numeric" />
        </div>
        <CostFields s={p.s} set={p.set} error={run.error} />
        <UniverseFields s={p.s} set={p.set} error={run.error} allowSymbols={false} />
        <WindowFields s={p.s} set={p.set} error={run.error} />
        <RunButton label={t('opt.run')} busy={run.busy} cancel={run.cancel} />
        <ErrorBox error={run.error} shownFields={SHOWN_FIELDS} />
      </form>
      {r && (
        <section class="results" id="results" aria-label={t('view.optimize')}>
          <RunScope r={r} />
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
          {r.best && <p id="opt-best">{t('opt.best', { sl: r.best.sl_pct, tp: r.best.tp_pct, pf: n(r.best.profit_factor) })}</p>}
          {r.deflated_sharpe && (
            <p id="opt-dsr">
              {t('opt.dsr', { d: n(r.deflated_sharpe.dsr, 3), n: r.deflated_sharpe.n_trials, sig: r.significant ? `✓ ${t('opt.sig')}` : `✗ ${t('opt.notsig')}` })}
            </p>
          )}
          {r.warning && <p class="warn">⚠ {r.warning}</p>}
        </section>
      )}
    </>
  )
}
