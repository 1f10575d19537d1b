/** Optimize: profit factor over an SL × TP grid (POST /simulate/optimize), with the best cell and its deflated Sharpe. */
import { api, type OptimizeResult } from '../api'
import { ExecutionFields } from '../execution'
import { CostFields, StrategyPicker, TextField, UniverseFields, WindowFields, SHOWN_FIELDS } from '../form'
import { optimizeBody } from '../requests'
import { useRun } from '../run'
import { ErrorBox, useI18n } from '../ui'
import { Heatmap } from './heatmap'
import { RunButton } from './run-button'
import { RunScope } from './run-scope'
import { useRunOnSignal, type ViewProps } from './view'

export function OptimizeView(p: ViewProps) {
  const { t, n } = useI18n()
  const run = useRun<OptimizeResult>()
  useRunOnSignal(p.runSignal, () => void run.start(sig => api.optimize(optimizeBody(p.s), sig)))
  const r = run.result
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
        <ExecutionFields s={p.s} set={p.set} error={run.error} />
        <UniverseFields s={p.s} set={p.set} error={run.error} allowSymbols={false} />
        <WindowFields s={p.s} set={p.set} error={run.error} />
        <RunButton label={t('opt.run')} busy={run.busy} cancel={run.cancel} />
        <ErrorBox error={run.error} shownFields={SHOWN_FIELDS} />
      </form>
      {r && (
        <section class="results" id="results" aria-label={t('view.optimize')}>
          <RunScope r={r} />
          <Heatmap r={r} />
          {r.best && <p id="opt-best">{t('opt.best', { sl: r.best.sl_pct, tp: r.best.tp_pct, pf: n(r.best.profit_factor) })}</p>}
          {r.deflated_sharpe_info && (
            <p id="opt-dsr">
              {t('opt.dsr', { d: n(r.deflated_sharpe_info.dsr, 3), n: r.deflated_sharpe_info.n_trials, sig: r.significant ? `✓ ${t('opt.sig')}` : `✗ ${t('opt.notsig')}` })}
            </p>
          )}
          {r.warning && <p class="warn">⚠ {r.warning}</p>}
        </section>
      )}
    </>
  )
}
