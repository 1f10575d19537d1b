/**
 * Sweep: a space of parameters searched on the workers (POST /research/sweeps), followed
 * live through its event stream (each finished trial and the progress), cancellable; then
 * the heat map of two parameters, every trial, and what the sweep says about overfitting
 * (PBO, the deflated Sharpe with the ledger's n_trials, stability), each explained.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, type SweepBody, type SweepResult, type SweepTrialItem } from '../api'
import { SHOWN_FIELDS, StrategyPicker, TextField, UniverseFields, WindowFields } from '../form'
import { sweepBody } from '../requests'
import { Overfitting } from '../research/overfitting'
import { SpaceEditor } from '../research/space-editor'
import { SweepHeatmap, TrialTable } from '../research/trials'
import { SearchFields, StopReason, TrialsProgress } from '../research/search-fields'
import { ErrorBox, problemsFor, useI18n } from '../ui'
import { useRunOnSignal, type ViewProps } from './view'

export interface SweepLive {
  id: string
  state: SweepResult['state']
  reason: string | null
  done: number
  total: number
  trials: SweepTrialItem[]
  /** the sweep as GET answers it once it has stopped */
  final: SweepResult | null
}

const stopped = (state: string) => state === 'done' || state === 'cancelled' || state === 'failed'

/** A sweep in flight: started, followed by its Server-Sent Events, cancelled with DELETE, read whole (every page of its ledger) once it stops. */
export function useSweep() {
  const [live, setLive] = useState<SweepLive | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const source = useRef<EventSource | null>(null)
  const current = useRef<string | null>(null)
  /**
   * trials heard and not yet drawn: a sweep's workers finish hundreds of trials a second, and
   * drawing the heat map and the table once per trial (each the size of every trial so far)
   * kept the page from answering for tens of seconds on a sweep of a thousand; they are
   * drawn together once a frame instead
   */
  const heard = useRef<{ id: string; items: SweepTrialItem[]; frame: number | null }>({ id: '', items: [], frame: null })
  useEffect(
    () => () => {
      source.current?.close()
      if (heard.current.frame !== null) cancelAnimationFrame(heard.current.frame)
    },
    [],
  )
  const patch = (id: string, fn: (l: SweepLive) => SweepLive) => setLive(l => (l && l.id === id ? fn(l) : l))
  const hear = (id: string, item: SweepTrialItem) => {
    if (heard.current.id !== id) heard.current = { id, items: [], frame: heard.current.frame }
    heard.current.items.push(item)
    if (heard.current.frame === null) heard.current.frame = requestAnimationFrame(drawHeard)
  }
  const drawHeard = () => {
    const { id, items } = heard.current
    heard.current = { id, items: [], frame: null }
    patch(id, l => {
      const known = new Set(l.trials.map(x => x.trial))
      const fresh: SweepTrialItem[] = []
      for (const x of items)
        if (!known.has(x.trial)) {
          known.add(x.trial)
          fresh.push(x)
        }
      // a trial or progress means the sweep runs (a stream opened after it started never hears its 'running')
      return fresh.length === 0 ? l : { ...l, state: l.state === 'queued' ? 'running' : l.state, trials: [...l.trials, ...fresh] }
    })
  }

  const finish = async (id: string) => {
    source.current?.close()
    source.current = null
    try {
      // the whole ledger, a page (the route's most, 1,000) at a time
      const r = await api.sweep(id, { sort: 'trial', limit: 1000 })
      const trials = [...r.trials.items]
      while (trials.length < r.trials.total) {
        const next = await api.sweep(id, { sort: 'trial', limit: 1000, offset: trials.length })
        if (next.trials.items.length === 0) break
        trials.push(...next.trials.items)
      }
      patch(id, l => ({ ...l, final: r, state: r.state, reason: r.reason, done: r.progress.done, total: r.progress.total, trials }))
    } catch (e) {
      if (current.current === id) setError(e)
    } finally {
      if (current.current === id) setBusy(false)
    }
  }

  const start = async (body: SweepBody) => {
    source.current?.close()
    source.current = null
    setError(null)
    setLive(null)
    setBusy(true)
    let id: string
    try {
      const acc = await api.startSweep(body)
      id = acc.id
      current.current = id
      setLive({ id, state: acc.state, reason: null, done: 0, total: acc.n_planned, trials: [], final: null })
      const es = new EventSource(acc.links.events ?? `/research/sweeps/${encodeURIComponent(id)}/events`)
      source.current = es
      es.addEventListener('trial', ev => hear(id, JSON.parse((ev as MessageEvent<string>).data) as SweepTrialItem))
      es.addEventListener('progress', ev => {
        const p = JSON.parse((ev as MessageEvent<string>).data) as { done: number; total: number }
        patch(id, l => ({ ...l, state: l.state === 'queued' && p.done > 0 ? 'running' : l.state, done: p.done, total: p.total }))
      })
      es.addEventListener('state', ev => {
        const s = JSON.parse((ev as MessageEvent<string>).data) as { state: SweepResult['state']; reason: string | null }
        patch(id, l => ({ ...l, state: s.state, reason: s.reason }))
        if (stopped(s.state)) void finish(id)
      })
      es.onerror = () => {
        // the server ends the stream once the sweep has stopped; a closed stream means read it whole
        if (es.readyState === EventSource.CLOSED) void finish(id)
      }
    } catch (e) {
      setError(e)
      setBusy(false)
    }
  }

  const cancel = async () => {
    const id = current.current
    if (!id) return
    try {
      await api.cancelSweep(id)
    } catch (e) {
      setError(e)
    }
  }
  return { live, error, busy, start, cancel }
}

export function SweepView(p: ViewProps) {
  const { t } = useI18n()
  const sweep = useSweep()
  useRunOnSignal(p.runSignal, () => void sweep.start(sweepBody(p.s)))
  const live = sweep.live
  const final = live?.final ?? null
  const names = final?.space.map(d => d.name) ?? Object.keys(live?.trials[0]?.params ?? {})
  const objective = final?.objective ?? p.s.objective
  const best = final?.best?.trial ?? bestOf(live?.trials ?? [])
  return (
    <>
      <form
        class="panel"
        noValidate
        aria-label={t('view.sweep')}
        onSubmit={e => {
          e.preventDefault()
          p.commit()
        }}
      >
        <StrategyPicker s={p.s} set={p.set} meta={p.meta} error={sweep.error} allowBuilder onPreset={p.onPreset} rowErrors={new Map()} treeErrors={[]} />
        <SpaceEditor s={p.s} set={p.set} meta={p.meta} problems={problemsFor(sweep.error, 'space')} />
        <SearchFields s={p.s} set={p.set} error={sweep.error} />
        <div class="row-fields">
          <TextField k="bars" label={t('bars')} s={p.s} set={p.set} error={sweep.error} inputMode="numeric" />
          <TextField k="lev" label={t('lev')} s={p.s} set={p.set} error={sweep.error} inputMode="numeric" />
        </div>
        <UniverseFields s={p.s} set={p.set} error={sweep.error} allowSymbols />
        <WindowFields s={p.s} set={p.set} error={sweep.error} />
        <div class="run-bar">
          <button type="submit" class="primary" id="run" disabled={sweep.busy}>
            {t('sw.run')}
          </button>
          {sweep.busy && live && !stopped(live.state) && (
            <button type="button" class="secondary" id="sw-cancel" onClick={() => void sweep.cancel()}>
              {t('sw.cancel')}
            </button>
          )}
        </div>
        <ErrorBox error={sweep.error} shownFields={[...SHOWN_FIELDS, 'space', 'objective', 'budget', 'seed', 'min_trades', 'method']} />
      </form>
      {live && (
        <section class="results" id="results" aria-label={t('view.sweep')}>
          <TrialsProgress state={live.state} done={live.done} total={live.total} id="sw-progress" />
          <StopReason state={live.state} reason={live.reason} />
          {final?.best && <p id="sw-best">{t('sw.best', { trial: final.best.trial, params: paramsText(final.best.params), o: objective, v: final.best.objective_value.toFixed(3) })}</p>}
          {names.length >= 2 && live.trials.length > 0 && <SweepHeatmap trials={live.trials} names={names} objective={objective} bestTrial={best} />}
          {final && <Overfitting r={final} />}
          {live.trials.length > 0 && <TrialTable trials={live.trials} names={names} objective={objective} />}
        </section>
      )}
    </>
  )
}

function bestOf(trials: readonly SweepTrialItem[]): number | null {
  let best: SweepTrialItem | null = null
  for (const x of trials) if (x.objective_value !== null && (best === null || x.objective_value > best.objective_value!)) best = x
  return best?.trial ?? null
}

export const paramsText = (params: Record<string, number | string>) =>
  Object.entries(params)
    .map(([k, v]) => `${k} = ${v}`)
    .join(', ')
