/** Simulate: a registry strategy over the top N (POST /simulate), or a symbol list or a built strategy (POST /backtest). */
import { api, type RunResult } from '../api'
import { ExecutionFields } from '../execution'
import { CostFields, ExitFields, StrategyPicker, UniverseFields, WindowFields, SHOWN_FIELDS, err } from '../form'
import { rowErrors, shareLink, simulatePlan } from '../requests'
import { Results } from '../results'
import { useRun } from '../run'
import { ErrorBox, useI18n } from '../ui'
import { RunButton } from './run-button'
import { useRunOnSignal, type ViewProps } from './view'

/** the coin view for one coin of the run in the address (its strategy, exits and window) */
function coinLink(symbol: string): string {
  const q = new URLSearchParams(location.search)
  q.set('view', 'coin')
  q.set('symbol', symbol)
  return `/?${q}`
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
        <ExecutionFields s={p.s} set={p.set} error={run.error} />
        <UniverseFields s={p.s} set={p.set} error={run.error} allowSymbols />
        <WindowFields s={p.s} set={p.set} error={run.error} />
        <RunButton label={t('run')} busy={run.busy} cancel={run.cancel} />
        <ErrorBox error={run.error} shownFields={SHOWN_FIELDS} />
      </form>
      {r ? <Results r={r} shareUrl={share} coinLink={p.s.mode === 'registry' ? coinLink : null} /> : !run.busy && <p class="hint empty">{t('empty.hint')}</p>}
    </>
  )
}
