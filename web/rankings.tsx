/** Rankings (GET /rankings/daily, /hot-strategies) and signals (GET /signals/history, /signals/scored). */
import type { Group, Period } from '../src/records/rankings/configurations'
import { api, type RankingRow, type RankingsResult, type SignalsResult } from './api'
import { TextField } from './form'
import { useRun } from './run'
import { useEffect, useState } from 'preact/hooks'
import { useLiveEvents } from './live'
import type { Key } from './i18n'
import { DEFAULTS, toQuery, type Settings } from './settings'
import { DataTable, described, ErrorBox, Field, Pct, Progress, useI18n, type Column } from './ui'
import type { ViewProps } from './views/view'

/** every period and group the rankings publish (a new one fails the type check here) */
const PERIOD_KEYS: Record<Period, Key> = { '7d': 'rk.7d', '30d': 'rk.30d', '365d': 'rk.365d' }
/** top N of each group; null: BTCUSDT alone */
const GROUP_TOP_N: Record<Group, number | null> = { top30: 30, top50: 50, top100: 100, btc: null }
const PERIODS = Object.keys(PERIOD_KEYS) as Period[]
const GROUPS = Object.keys(GROUP_TOP_N) as Group[]

function groupLabel(g: Group, t: (k: Key, v?: Record<string, string | number>) => string): string {
  const n = GROUP_TOP_N[g]
  return n === undefined ? g : n === null ? 'BTCUSDT' : t('rk.top', { n })
}

/** the page's address that reruns a ranked configuration as /simulate does (its window, coins and exits) */
export function rankingRunLink(row: RankingRow, r: RankingsResult, lang: Settings['lang']): string {
  const top = GROUP_TOP_N[r.group as Group] ?? null
  const s: Settings = {
    ...DEFAULTS,
    lang,
    strategy: row.strategy,
    sl: String(row.sl_pct),
    tp: String(row.tp_pct),
    bars: String(row.max_bars),
    tf: row.timeframe,
    from: String((r as { start_date?: string }).start_date ?? ''),
    to: String((r as { end_date?: string }).end_date ?? ''),
    ...(top === null ? { universe: 'symbols' as const, symbols: 'BTCUSDT' } : { topN: String(top) }),
  }
  const q = new URLSearchParams(toQuery(s, { run: true }))
  // spelled out even where it equals the page's default, so the link does not depend on it
  if (top !== null) q.set('topN', String(top))
  return `/?${q}`
}

/** The period's start and where the group's candles begin, when they begin inside it (data_start_date). */
function shortPeriod(r: RankingsResult): { start: string; data: string } | null {
  const x = r as { start_date?: string; data_start_date?: string | null }
  return x.start_date && x.data_start_date && x.data_start_date > x.start_date ? { start: x.start_date, data: x.data_start_date } : null
}

function RankTable(props: { rows: RankingRow[]; r: RankingsResult; caption: string; id: string }) {
  const { t, n, lang } = useI18n()
  const cols: Column<RankingRow>[] = [
    { key: 'rank', label: '#', value: x => x.rank, numeric: true },
    {
      key: 'name',
      label: t('strategy'),
      value: x => (lang === 'ko' && x.name_ko) || x.name_en,
      // the name is the link that reruns this configuration on the simulate view
      render: x => (
        <a href={rankingRunLink(x, props.r, lang)} title={t('rk.simulate')}>
          {(lang === 'ko' && x.name_ko) || x.name_en} ↗
        </a>
      ),
    },
    { key: 'cfg', label: t('rk.config'), value: x => `${x.timeframe} · ${x.sl_pct}/${x.tp_pct}/${x.max_bars}` },
    { key: 'status', label: t('strategy.status'), value: x => x.status },
    { key: 'pf', label: t('res.pf'), value: x => x.profit_factor, render: x => `${n(x.profit_factor)}${x.pf_capped ? ' (cap)' : ''}`, numeric: true },
    { key: 'wr', label: t('res.winRate'), value: x => x.win_rate, render: x => `${n(x.win_rate, 1)} %`, numeric: true },
    { key: 'ret', label: t('tbl.return'), value: x => x.total_return, render: x => <Pct v={x.total_return} />, numeric: true },
    { key: 'trades', label: t('res.trades'), value: x => x.total_trades, numeric: true },
    { key: 'mdd', label: t('res.mdd'), value: x => x.max_drawdown, render: x => <Pct v={-x.max_drawdown} />, numeric: true },
    {
      key: 'chg',
      label: t('rk.change'),
      value: x => x.rank_change ?? 0,
      render: x => (x.rank_change === null ? t('rk.new') : x.rank_change > 0 ? `▲ ${x.rank_change}` : x.rank_change < 0 ? `▼ ${-x.rank_change}` : '＝'),
      numeric: true,
    },
  ]
  return <DataTable id={props.id} caption={props.caption} rows={props.rows} columns={cols} />
}

export function RankingsView(p: ViewProps) {
  const { t, lang } = useI18n()
  const run = useRun<RankingsResult>()
  const hot = useRun<Awaited<ReturnType<typeof api.hotStrategies>>>()
  const go = () => {
    void run.start(sig => api.rankings({ period: p.s.period, group: p.s.group, date: p.s.rdate.replaceAll('-', '') }, sig))
    void hot.start(sig => api.hotStrategies(sig))
  }
  useEffect(() => {
    if (p.runSignal > 0 || !run.result) go()
  }, [p.runSignal])
  const r = run.result
  return (
    <>
      <form
        class="panel"
        noValidate
        aria-label={t('view.rankings')}
        onSubmit={e => {
          e.preventDefault()
          p.commit()
        }}
      >
        <div class="row-fields">
          <Field id="f-period" label={t('rk.period')}>
            <select {...described('f-period')} value={p.s.period} onChange={e => p.set({ period: (e.target as HTMLSelectElement).value })}>
              {PERIODS.map(x => (
                <option value={x}>{t(PERIOD_KEYS[x])}</option>
              ))}
            </select>
          </Field>
          <Field id="f-group" label={t('rk.group')}>
            <select {...described('f-group')} value={p.s.group} onChange={e => p.set({ group: (e.target as HTMLSelectElement).value })}>
              {GROUPS.map(x => (
                <option value={x}>{groupLabel(x, t)}</option>
              ))}
            </select>
          </Field>
          <TextField k="rdate" label={t('rk.date')} s={p.s} set={p.set} error={run.error} type="date" api={['date']} />
        </div>
        <div class="run-bar">
          <button type="submit" class="primary" id="run" disabled={run.busy}>
            {t('rk.show')}
          </button>
          {run.busy && <Progress />}
        </div>
        <ErrorBox error={run.error} shownFields={['date']} />
      </form>
      {r && (
        <section class="results" id="results" aria-label={t('view.rankings')}>
          <h2>{t('rk.title', { date: r.date, period: t(PERIOD_KEYS[r.period as Period] ?? 'rk.30d'), group: groupLabel(r.group as Group, t) })}</h2>
          <p class="hint">{t('rk.linkHint')}</p>
          {shortPeriod(r) && <p class="warn" id="rk-short">ⓘ {t('rk.shortPeriod', shortPeriod(r)!)}</p>}
          {r.headline_note && <p class="warn">ⓘ {lang === 'ko' ? r.headline_note.ko : r.headline_note.en}</p>}
          <RankTable rows={r.top3} r={r} caption={t('rk.top3')} id="top3" />
          <RankTable rows={r.worst3} r={r} caption={t('rk.worst3')} id="worst3" />
          {r.held_back.length > 0 && (
            // rows with too few trades are not ranked (their capped figures would top the list): said apart
            <details class="hint" id="rk-held">
              <summary>{t('rk.heldBack', { n: r.held_back.length })}</summary>
              <ul>
                {r.held_back.map(h => (
                  <li>
                    {h.name_en} · {h.timeframe} {h.sl_pct}/{h.tp_pct}/{h.max_bars}: {t('rk.heldWhy', { trades: h.total_trades })}
                  </li>
                ))}
              </ul>
            </details>
          )}
          <p class="hint">
            {r.rc_scope} <a href={r.criteria_url}>{t('rk.criteria')}</a> · <a href={r.citation && typeof r.citation === 'object' ? String((r.citation as { day_file_url?: string }).day_file_url ?? '') : ''}>{t('rk.dayFile')}</a>
          </p>
        </section>
      )}
      {hot.result && hot.result.strategies.length > 0 && (
        <section class="results" aria-label={t('rk.hot')}>
          <DataTable
            id="hot"
            caption={t('rk.hot')}
            rows={hot.result.strategies}
            columns={[
              { key: 'name', label: t('strategy'), value: x => x.strategy_name },
              { key: 'status', label: t('strategy.status'), value: x => x.status },
              { key: 'pf', label: t('res.pf'), value: x => x.profit_factor, render: x => x.profit_factor.toFixed(2), numeric: true },
              { key: 'wr', label: t('res.winRate'), value: x => x.win_rate, render: x => `${x.win_rate.toFixed(1)} %`, numeric: true },
              { key: 'ret', label: t('tbl.return'), value: x => x.total_return_pct, render: x => <Pct v={x.total_return_pct} />, numeric: true },
              { key: 'trades', label: t('res.trades'), value: x => x.total_trades, numeric: true },
            ]}
          />
        </section>
      )}
    </>
  )
}

type Scored = SignalsResult['scored']['signals'][number]
type Recent = SignalsResult['recent']['signals'][number]

/** `newer` first, then the rows of `rows` not among them (a record announced again replaces its row) */
function mergeById<T extends { id: string }>(newer: readonly T[], rows: readonly T[]): T[] {
  const seen = new Set(newer.map(x => x.id))
  return [...newer, ...rows.filter(x => !seen.has(x.id))]
}

export function SignalsView(p: ViewProps) {
  const { t, n } = useI18n()
  const run = useRun<SignalsResult>()
  // the query values are sent as typed ('' = the route's default): the server's 422 names a bad one
  const go = () =>
    void run.start(async sig => {
      const [recent, scored] = await Promise.all([api.signalsHistory(p.s.sigHours.trim() || '24', sig), api.signalsScored(p.s.sigDays.trim() || '14', sig)])
      return { recent, scored }
    })
  useEffect(() => {
    if (p.runSignal > 0 || !run.result) go()
  }, [p.runSignal])
  // records announced by the feed since the view opened, shown over the fetched tables (the
  // stream opens with the view, before the first fetch answers, so nothing falls between)
  const [fresh, setFresh] = useState<{ signals: Recent[]; scored: Map<string, Scored> }>({ signals: [], scored: new Map() })
  const live = useLiveEvents(['signal', 'scored'], (kind, payload) =>
    setFresh(f =>
      kind === 'signal'
        ? { ...f, signals: [payload as Recent, ...f.signals.filter(x => x.id !== (payload as Recent).id)].slice(0, 500) }
        : { ...f, scored: new Map(f.scored).set((payload as { scored: Scored }).scored.id, (payload as { scored: Scored }).scored) },
    ),
  )
  const fetched = run.result
  const r = fetched && {
    recent: { ...fetched.recent, signals: mergeById(fresh.signals, fetched.recent.signals) },
    scored: { ...fetched.scored, signals: mergeById([...fresh.scored.values()].reverse(), fetched.scored.signals) },
  }
  const recentCols: Column<Recent>[] = [
    { key: 'time', label: t('sig.time'), value: x => x.signal_time, render: x => x.signal_time.replace('T', ' ').slice(0, 16) },
    { key: 'coin', label: t('coin.symbol'), value: x => x.coin },
    { key: 'strategy', label: t('strategy'), value: x => x.strategy_name },
    { key: 'dir', label: t('direction'), value: x => x.direction, render: x => t(x.direction) },
    { key: 'tf', label: t('tf'), value: x => x.timeframe },
    { key: 'entry', label: t('tr.entryPrice'), value: x => x.entry_price, render: x => x.entry_price.toPrecision(6), numeric: true },
    { key: 'exits', label: t('sig.exits'), value: x => x.sl_pct, render: x => `${x.sl_pct} / ${x.tp_pct} / ${x.max_bars}` },
    { key: 'status', label: t('strategy.status'), value: x => x.status },
  ]
  const scoredCols: Column<Scored>[] = [
    { key: 'time', label: t('sig.time'), value: x => x.signal_time, render: x => x.signal_time.replace('T', ' ').slice(0, 16) },
    { key: 'coin', label: t('coin.symbol'), value: x => x.coin },
    { key: 'strategy', label: t('strategy'), value: x => x.strategy_name },
    { key: 'dir', label: t('direction'), value: x => x.direction, render: x => t(x.direction) },
    { key: 'status', label: t('sig.outcome'), value: x => x.status, render: x => <span class={`badge badge-${x.status === 'tp' ? 'pass' : x.status === 'open' || x.status === 'unscoreable' ? 'not_evaluated' : 'fail'}`}>{t(`sig.${x.status}`)}</span> },
    { key: 'pnl', label: t('tr.pnl'), value: x => x.pnl_pct, render: x => <Pct v={x.pnl_pct} />, numeric: true },
    { key: 'bars', label: t('tr.bars'), value: x => x.bars_held ?? -1, render: x => (x.bars_held === null ? '—' : String(x.bars_held)), numeric: true },
    { key: 'fee', label: t('tr.fee'), value: x => x.fee_pct ?? 0, render: x => n(x.fee_pct, 3), numeric: true },
    { key: 'fund', label: t('tr.funding'), value: x => x.funding_pct ?? 0, render: x => n(x.funding_pct, 3), numeric: true },
  ]
  return (
    <>
      <form
        class="panel"
        noValidate
        aria-label={t('view.signals')}
        onSubmit={e => {
          e.preventDefault()
          p.commit()
        }}
      >
        <div class="row-fields">
          <TextField k="sigHours" label={t('sig.hours')} s={p.s} set={p.set} error={run.error} api={['hours']} inputMode="numeric" />
          <TextField k="sigDays" label={t('sig.days')} s={p.s} set={p.set} error={run.error} api={['days']} inputMode="numeric" />
        </div>
        <div class="run-bar">
          <button type="submit" class="primary" id="run" disabled={run.busy}>
            {t('sig.show')}
          </button>
          {run.busy && <Progress />}
          <span id="live" class={`live live-${live}`} role="status" title={t('live.hint')}>
            {t(`live.${live}`)}
          </span>
        </div>
        <ErrorBox error={run.error} shownFields={['hours', 'days']} />
      </form>
      {r && (
        <section class="results" id="results" aria-label={t('view.signals')}>
          {r.recent.signals.length === 0 ? <p class="empty">{t('sig.none')}</p> : <DataTable id="recent" caption={t('sig.recent', { h: r.recent.hours })} rows={r.recent.signals} columns={recentCols} pageSize={25} />}
          <p class="hint">{r.scored.note}</p>
          {r.scored.signals.length === 0 ? <p class="empty">{t('sig.none')}</p> : <DataTable id="scored" caption={t('sig.scored')} rows={r.scored.signals} columns={scoredCols} pageSize={25} />}
        </section>
      )}
    </>
  )
}
