/** Coin: one coin's run (POST /simulate/coin) drawn on its candles (GET /ohlcv/{symbol}) with bands, EMAs and the trades as markers. */
import { useMemo } from 'preact/hooks'
import { ExecutionFields } from '../execution'
import { api, type CoinSimResult, type Ohlcv } from '../api'
import { CandleChart, COLORS, type Overlay, type TradeMark } from '../charts'
import { CostFields, ExitFields, StrategyPicker, TIMEFRAME_HOURS, WindowFields, SHOWN_FIELDS, err } from '../form'
import { coinBody } from '../requests'
import { TradesTable } from '../results'
import { useRun } from '../run'
import { described, ErrorBox, Field, Pct, useI18n } from '../ui'
import { RunButton } from './run-button'
import { useRunOnSignal, type ViewProps } from './view'

/** candles the coin view draws */
const COIN_BARS = 2000

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
        <ExecutionFields s={p.s} set={p.set} error={run.error} />
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
