/** Paper trading (GET /paper-trading, ?cycle=N) under the public performance summary (GET /performance/public). */
import { useEffect, useMemo } from 'preact/hooks'
import { api, ApiError, type Paper, type PaperPosition, type Performance } from './api'
import { COLORS, LineChart, type LineSpec } from './charts'
import type { Key } from './i18n'
import { useRun } from './run'
import { DataTable, described, ErrorBox, Field, Metric, Pct, Progress, useI18n, type Column } from './ui'
import type { ViewProps } from './views/view'

interface PaperAnswer {
  /** null: the route's 404 (not initialized, or no such cycle) */
  paper: Paper | null
  missing: string | null
  perf: Performance
}

/** exit reasons and statuses in words; one the page does not know is shown as the server writes it */
const REASON_KEYS: Record<string, Key> = {
  tp: 'sig.tp',
  sl: 'sig.sl',
  timeout: 'sig.timeout',
  liquidation: 'sig.liquidation',
  signal: 'pp.signal',
  cycle_end: 'pp.cycle_end',
  cancelled: 'pp.cancelled',
  pending: 'pp.pending',
  open: 'sig.open',
}

const price = (v: number | null) => (v === null ? '—' : v.toPrecision(6))
const time = (iso: string | null) => (iso === null ? '—' : iso.replace('T', ' ').slice(0, 16))
/** how far the paper entry is from the signal's reference entry, in % (null while pending) */
const slip = (x: PaperPosition) => (x.entry_price === null ? null : (x.entry_price / x.reference_entry_price - 1) * 100)

function Summary(props: { perf: Performance }) {
  const { t, n } = useI18n()
  const { regime, paper } = props.perf
  const pick = paper?.strategy_pick
  return (
    <section class="panel" id="performance" aria-label={t('perf.title')}>
      <dl class="metrics">
        <Metric label={t('perf.regime')} id="perf-regime">
          {regime.regime ?? '—'}
          <span class="sub">
            {regime.fear_greed_index !== null && t('perf.fg', { v: regime.fear_greed_index })}
            {regime.proxy && ` · ${t('perf.proxy')}`}
            {regime.stale && ` · ${t('perf.stale')}`}
          </span>
          {regime.recommended_strategies.length > 0 && <span class="sub">{t('perf.recommended', { s: regime.recommended_strategies.map(s => s.name).join(', ') })}</span>}
        </Metric>
        {paper && (
          <>
            <Metric label={t('perf.pick')} id="perf-pick">
              {pick && pick.strategies.length > 0 ? t('perf.pickN', { n: pick.strategies.length }) : '—'}
              {pick && pick.strategies.length > 0 && <span class="sub">{pick.strategies.map(s => s.strategy).join(', ')}</span>}
              {pick && <span class="sub">{ruleWords(pick, t)}</span>}
            </Metric>
            <Metric label={t('perf.exposure')} id="perf-exposure">
              {t('perf.exposureV', { n: paper.positions.open_count, usd: n(paper.positions.exposure_usd, 0) })}
              <span class="sub">
                {t('pp.unrealized')}: {n(paper.positions.unrealized_pnl_usd)} USD
              </span>
            </Metric>
          </>
        )}
      </dl>
    </section>
  )
}

function ruleWords(picks: NonNullable<Paper['picks']>, t: ReturnType<typeof useI18n>['t']): string {
  const r = picks.rule === 'ranking' ? t('pp.rule.ranking', { d: picks.ranking_date ?? '' }) : picks.rule === 'regime' ? t('pp.rule.regime') : picks.rule === 'none' ? t('pp.rule.none') : picks.rule
  return t('pp.rule', { r })
}

function PaperState(props: { p: Paper }) {
  const { t, n } = useI18n()
  const p = props.p
  const lines: LineSpec[] = useMemo(() => [{ name: t('pp.equityLine'), color: COLORS.strategy, style: 'solid', data: p.history.map(h => ({ time: h.date, value: h.equity })) }], [p, t])
  const reason = (x: string | null) => (x === null ? '—' : REASON_KEYS[x] ? t(REASON_KEYS[x]) : x)
  const common: Column<PaperPosition>[] = [
    { key: 'coin', label: t('coin.symbol'), value: x => x.coin },
    { key: 'strategy', label: t('strategy'), value: x => x.strategy },
    { key: 'dir', label: t('direction'), value: x => x.direction, render: x => (x.direction === 'long' || x.direction === 'short' ? t(x.direction) : x.direction) },
    { key: 'entry', label: t('tr.entry'), value: x => x.entry_time, render: x => time(x.entry_time) },
    { key: 'price', label: t('tr.entryPrice'), value: x => x.entry_price ?? 0, render: x => price(x.entry_price), numeric: true },
    { key: 'ref', label: t('pp.ref'), value: x => x.reference_entry_price, render: x => price(x.reference_entry_price), numeric: true },
    { key: 'slip', label: t('pp.slip'), value: x => slip(x) ?? 0, render: x => <Pct v={slip(x)} digits={3} />, numeric: true },
  ]
  // the execution model the position was priced with, as the server labels it (absent on positions opened before the labels)
  const engineCol: Column<PaperPosition> = { key: 'engine', label: t('pp.engine'), value: x => x.engine ?? '', render: x => x.engine ?? t('pp.engineNone') }
  const openCols: Column<PaperPosition>[] = [
    ...common,
    { key: 'status', label: t('pp.status'), value: x => x.status, render: x => reason(x.status) },
    { key: 'mark', label: t('pp.mark'), value: x => x.mark_price ?? 0, render: x => price(x.mark_price), numeric: true },
    { key: 'unreal', label: t('pp.unrealizedUsd'), value: x => x.unrealized_usd ?? 0, render: x => n(x.unrealized_usd), numeric: true },
    engineCol,
  ]
  const closedCols: Column<PaperPosition>[] = [
    ...common,
    { key: 'exit', label: t('tr.exit'), value: x => x.exit_time ?? '', render: x => time(x.exit_time) },
    { key: 'exitPrice', label: t('tr.exitPrice'), value: x => x.exit_price ?? 0, render: x => price(x.exit_price), numeric: true },
    { key: 'reason', label: t('tr.reason'), value: x => x.exit_reason ?? x.status, render: x => reason(x.exit_reason ?? x.status) },
    { key: 'pnl', label: t('tr.pnl'), value: x => x.pnl_pct ?? 0, render: x => <Pct v={x.pnl_pct} />, numeric: true },
    { key: 'pnlUsd', label: t('tr.pnlUsd'), value: x => x.pnl_usd ?? 0, render: x => n(x.pnl_usd), numeric: true },
    engineCol,
  ]
  return (
    <section class="results" id="results" aria-label={t('view.paper')}>
      <h2>
        {t('pp.title', { n: p.cycle_id })}: {p.cycle_status === 'active' ? t('pp.active') : t('pp.complete')}
      </h2>
      <p class="hint">{t('pp.dates', { from: p.start_date, to: p.end_date })}</p>
      <dl class="metrics" id="paper-headline">
        <Metric label={t('pp.day')} id="pp-day">
          {t('pp.dayOf', { d: p.cycle_day, n: p.cycle_length_days })}
        </Metric>
        <Metric label={t('pp.capital')} id="pp-capital">
          {n(p.starting_capital, 0)} USD
        </Metric>
        <Metric label={t('pp.equity')} id="pp-equity">
          {n(p.current_equity)} USD
        </Metric>
        <Metric label={t('pp.return')} id="pp-return">
          <Pct v={p.total_return_pct} />
        </Metric>
        <Metric label={t('pp.yesterday')} id="pp-yesterday">
          {p.yesterday_pnl === null ? '—' : <span class={p.yesterday_pnl > 0 ? 'pos' : p.yesterday_pnl < 0 ? 'neg' : ''}>{`${p.yesterday_pnl > 0 ? '+' : ''}${n(p.yesterday_pnl)} USD`}</span>}
          {p.yesterday && <span class="sub">{p.yesterday}</span>}
        </Metric>
        <Metric label={t('pp.realized')}>{n(p.realized_pnl)} USD</Metric>
        <Metric label={t('pp.unrealized')}>{n(p.unrealized_pnl)} USD</Metric>
        <Metric label={t('pp.slots')}>{t('pp.slotsV', { n: p.slots, m: n(p.starting_capital / p.slots, 0) })}</Metric>
      </dl>
      <p class="hint">
        {t('pp.marked', { t: time(p.marked_at) })}
        {p.completed_at && <> {t('pp.completed', { t: time(p.completed_at) })}</>}
      </p>
      {p.picks && <p id="pp-rule-used">{ruleWords(p.picks, t)}</p>}
      {p.picks && p.picks.strategies.length > 0 ? (
        <DataTable
          id="picks"
          caption={t('pp.picks', { day: p.picks.day })}
          rows={p.picks.strategies}
          columns={[
            { key: 'strategy', label: t('strategy'), value: x => x.strategy },
            { key: 'tf', label: t('tf'), value: x => x.timeframe },
            { key: 'exits', label: t('sig.exits'), value: x => x.sl_pct, render: x => `${x.sl_pct} / ${x.tp_pct} / ${x.max_bars}` },
            { key: 'pf', label: t('res.pf'), value: x => x.profit_factor ?? 0, render: x => n(x.profit_factor), numeric: true },
            { key: 'trades', label: t('res.trades'), value: x => x.total_trades ?? 0, render: x => (x.total_trades === null ? '—' : String(x.total_trades)), numeric: true },
          ]}
        />
      ) : (
        <p class="empty">{t('pp.noPicks')}</p>
      )}
      <p class="hint" id="pp-rule">
        {t('pp.ruleText')}: {p.pick_rule}
      </p>
      {p.history.length > 0 ? <LineChart id="paper-equity" title={t('pp.chart')} lines={lines} /> : <p class="empty">{t('pp.noHistory')}</p>}
      {p.open_positions.length > 0 ? <DataTable id="open-positions" caption={t('pp.open')} rows={p.open_positions} columns={openCols} pageSize={25} /> : <p class="empty">{t('pp.noOpen')}</p>}
      {p.closed_positions.length > 0 ? <DataTable id="closed-positions" caption={t('pp.closed')} rows={p.closed_positions} columns={closedCols} pageSize={25} /> : <p class="empty">{t('pp.noClosed')}</p>}
      {p.open_positions.length + p.closed_positions.length > 0 && (
        <p class="hint" id="pp-engine-note">
          {t('pp.engineHint')}
        </p>
      )}
    </section>
  )
}

export function PaperView(p: ViewProps) {
  const { t } = useI18n()
  const run = useRun<PaperAnswer>()
  const go = () =>
    void run.start(async sig => {
      // the cycle is sent as the address has it ('' = the latest): the server's 422 names a bad one
      const [paper, perf] = await Promise.all([
        api.paper(p.s.cycle.trim(), sig).then(
          x => ({ paper: x, missing: null }),
          (e: unknown) => {
            if (e instanceof ApiError && e.status === 404) return { paper: null, missing: e.message }
            throw e
          },
        ),
        api.performance(sig),
      ])
      return { ...paper, perf }
    })
  useEffect(() => {
    if (p.runSignal > 0 || !run.result) go()
  }, [p.runSignal])
  const r = run.result
  // cycles to pick from: the latest is the public summary's
  const latest = r?.perf.paper?.cycle_id ?? 0
  const cycles = Array.from({ length: latest }, (_, i) => latest - i)
  const asked = p.s.cycle.trim()
  return (
    <>
      {r && <Summary perf={r.perf} />}
      <form
        class="panel"
        noValidate
        aria-label={t('view.paper')}
        onSubmit={e => {
          e.preventDefault()
          p.commit()
        }}
      >
        <div class="row-fields">
          <Field id="f-cycle" label={t('pp.cycle')}>
            <select {...described('f-cycle')} value={asked} onChange={e => p.set({ cycle: (e.target as HTMLSelectElement).value })}>
              <option value="">{t('pp.latest')}</option>
              {cycles.map(c => (
                <option value={String(c)}>{t('pp.cycleN', { n: c })}</option>
              ))}
              {asked !== '' && !cycles.map(String).includes(asked) && <option value={asked}>{asked}</option>}
            </select>
          </Field>
        </div>
        <div class="run-bar">
          <button type="submit" class="primary" id="run" disabled={run.busy}>
            {t('pp.show')}
          </button>
          {run.busy && <Progress />}
        </div>
        <ErrorBox error={run.error} />
      </form>
      {r &&
        (r.paper ? (
          <PaperState p={r.paper} />
        ) : (
          <section class="results" id="results" aria-label={t('view.paper')}>
            <p class="empty" id="paper-empty">
              {asked === '' ? t('pp.notStarted') : t('pp.noCycle', { n: asked })}
              <span class="sub hint"> ({r.missing})</span>
            </p>
          </section>
        ))}
    </>
  )
}
