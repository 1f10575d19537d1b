/**
 * Walk-forward: on each fold the space is searched in sample and the chosen parameters run
 * on the out-of-sample part that follows (POST /research/walk-forward, read with GET until
 * it stops; cancellable). Shown: the folds on a time line, the stitched out-of-sample equity
 * against each fold's in-sample curve (the fold's chosen parameters run by /backtest over its
 * in-sample dates), the folds' table, the walk-forward efficiency and parameter stability.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { api, type EquityPoint, type WalkForwardBody, type WalkForwardResult } from '../api'
import { COLORS, LineChart, type LineSpec } from '../charts'
import { SHOWN_FIELDS, StrategyPicker, TextField, UniverseFields, WindowFields } from '../form'
import type { Meta } from '../meta'
import { foldBacktestBody, walkForwardBody } from '../requests'
import { FoldTable, FoldTimeline } from '../research/folds'
import { SearchFields, StopReason, TrialsProgress } from '../research/search-fields'
import { SpaceEditor } from '../research/space-editor'
import type { Settings } from '../settings'
import { ErrorBox, Field, Metric, problemsFor, useI18n } from '../ui'
import { paramsText } from './sweep'
import { useRunOnSignal, type ViewProps } from './view'

const POLL_MS = 700
const stopped = (state: string) => state === 'done' || state === 'cancelled' || state === 'failed'
const IS_COLORS = ['#64748b', '#0e7490', '#a16207', '#6d28d9', '#be185d', '#15803d']

/** A walk-forward run in flight, polled until it stops; then each fold's in-sample curve, one /backtest at a time. */
function useWalkForward() {
  const [result, setResult] = useState<WalkForwardResult | null>(null)
  const [curves, setCurves] = useState<{ fold: number; curve: EquityPoint[] }[]>([])
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const ctrl = useRef<AbortController | null>(null)
  const id = useRef<string | null>(null)
  useEffect(() => () => ctrl.current?.abort(), [])

  const start = async (body: WalkForwardBody, s: Settings, meta: Meta) => {
    ctrl.current?.abort()
    const c = new AbortController()
    ctrl.current = c
    setError(null)
    setResult(null)
    setCurves([])
    setBusy(true)
    try {
      const acc = await api.startWalkForward(body, c.signal)
      id.current = acc.id
      let r: WalkForwardResult
      for (;;) {
        r = await api.walkForward(acc.id, c.signal)
        if (c.signal.aborted) return
        setResult(r)
        if (stopped(r.state)) break
        await new Promise(res => setTimeout(res, POLL_MS))
      }
      const names = r.space
      for (const f of r.folds) {
        if (!f.params || c.signal.aborted) continue
        const run = await api.backtest(foldBacktestBody(s, meta, names, f.params, f.in_sample.start_date, f.in_sample.end_date), c.signal)
        setCurves(x => [...x, { fold: f.fold, curve: run.equity_curve }])
      }
    } catch (e) {
      if (!c.signal.aborted) setError(e)
    } finally {
      if (ctrl.current === c) setBusy(false)
    }
  }
  const cancel = async () => {
    if (!id.current) return
    try {
      await api.cancelWalkForward(id.current)
    } catch (e) {
      setError(e)
    }
  }
  return { result, curves, error, busy, start, cancel }
}

export function WalkForwardView(p: ViewProps) {
  const { t, n } = useI18n()
  const wf = useWalkForward()
  useRunOnSignal(p.runSignal, () => void wf.start(walkForwardBody(p.s), p.s, p.meta))
  const r = wf.result
  const names = r?.space.map(d => d.name) ?? []
  const lines = useMemo<LineSpec[]>(() => {
    if (!r?.out_of_sample) return []
    // the stitched run's curve is drawn from the first out-of-sample day: before it the folds were searching, not trading
    const from = r.folds.reduce((m, f) => (f.out_of_sample.start_date < m ? f.out_of_sample.start_date : m), '9999-12-31')
    const oos: LineSpec = { name: t('wf.oosCurve'), color: COLORS.strategy, style: 'solid', data: r.out_of_sample.equity_curve.filter(x => x.t >= from).map(x => ({ time: x.t, value: x.return_pct })) }
    const is = wf.curves.map(
      (c, i): LineSpec => ({ name: t('wf.isCurve', { k: c.fold }), color: IS_COLORS[i % IS_COLORS.length]!, style: i % 2 ? 'dotted' : 'dashed', data: c.curve.map(x => ({ time: x.t, value: x.return_pct })) }),
    )
    return [oos, ...is]
  }, [r, wf.curves, t])
  const oos = r?.out_of_sample ?? null
  return (
    <>
      <form
        class="panel"
        noValidate
        aria-label={t('view.walkforward')}
        onSubmit={e => {
          e.preventDefault()
          p.commit()
        }}
      >
        <StrategyPicker s={p.s} set={p.set} meta={p.meta} error={wf.error} allowBuilder onPreset={p.onPreset} rowErrors={new Map()} treeErrors={[]} />
        <SpaceEditor s={p.s} set={p.set} meta={p.meta} problems={problemsFor(wf.error, 'space')} />
        <SearchFields s={p.s} set={p.set} error={wf.error} />
        <div class="row-fields">
          <Field id="f-wfMode" label={t('wf.mode')}>
            <select id="f-wfMode" value={p.s.wfMode} onChange={e => p.set({ wfMode: (e.target as HTMLSelectElement).value })}>
              <option value="rolling">{t('wf.rolling')}</option>
              <option value="anchored">{t('wf.anchored')}</option>
            </select>
          </Field>
          <TextField k="isDays" api={['in_sample_days']} label={t('wf.isDays')} s={p.s} set={p.set} error={wf.error} inputMode="numeric" />
          <TextField k="oosDays" api={['out_of_sample_days']} label={t('wf.oosDays')} s={p.s} set={p.set} error={wf.error} inputMode="numeric" />
          <TextField k="folds" api={['folds']} label={t('wf.foldsN')} s={p.s} set={p.set} error={wf.error} inputMode="numeric" />
          <TextField k="purge" api={['purge_days']} label={t('wf.purge')} s={p.s} set={p.set} error={wf.error} inputMode="numeric" />
        </div>
        <UniverseFields s={p.s} set={p.set} error={wf.error} allowSymbols />
        <WindowFields s={p.s} set={p.set} error={wf.error} />
        <div class="run-bar">
          <button type="submit" class="primary" id="run" disabled={wf.busy}>
            {t('wf.run')}
          </button>
          {wf.busy && r && !stopped(r.state) && (
            <button type="button" class="secondary" id="wf-cancel" onClick={() => void wf.cancel()}>
              {t('sw.cancel')}
            </button>
          )}
        </div>
        <ErrorBox error={wf.error} shownFields={[...SHOWN_FIELDS, 'space', 'objective', 'in_sample_days', 'out_of_sample_days', 'folds', 'purge_days', 'min_trades']} />
      </form>
      {r && (
        <section class="results" id="results" aria-label={t('view.walkforward')}>
          <TrialsProgress state={r.state} done={r.progress.done} total={r.progress.total} id="wf-progress" />
          <StopReason state={r.state} reason={r.reason} />
          <dl class="metrics">
            <Metric label={t('wf.wfe')} id="wf-wfe">
              {r.walk_forward_efficiency === null ? '—' : n(r.walk_forward_efficiency, 2)}
            </Metric>
            <Metric label={t('wf.stability')} id="wf-stability">
              {r.parameter_stability ? n(r.parameter_stability.score, 2) : '—'}
            </Metric>
            <Metric label={t('wf.oosTradesAll')} id="wf-oos-trades">
              {oos ? oos.total_trades : '—'}
            </Metric>
            <Metric label={t('wf.oosReturn')} id="wf-oos-return">
              {oos ? `${n(oos.total_return_pct_portfolio, 2)} %` : '—'}
            </Metric>
            <Metric label={t('sw.ntrials')}>{r.n_trials}</Metric>
          </dl>
          <p class="hint" id="wf-explain">
            {t('wf.explain')}
          </p>
          <FoldTimeline folds={r.folds} />
          {lines.length > 0 && <LineChart id="wf-curves" title={t('wf.curves')} lines={lines} />}
          {r.folds.length > 0 && <FoldTable folds={r.folds} names={names} />}
          {r.parameter_stability && (
            <ul id="wf-params">
              {Object.entries(r.parameter_stability.by_parameter).map(([k, v]) => (
                <li>{t('wf.paramLine', { k, d: v.distinct, v: v.values.map(x => (x === null ? '—' : x)).join(' → ') })}</li>
              ))}
            </ul>
          )}
          {r.folds.some(f => f.params) && <p class="hint">{r.folds.map(f => `${t('wf.fold', { k: f.fold })}: ${f.params ? paramsText(f.params) : '—'}`).join(' · ')}</p>}
        </section>
      )}
    </>
  )
}
