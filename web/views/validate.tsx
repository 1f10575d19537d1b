/** Validate: out-of-sample split, trade bootstrap, resampled paths and the random-entry null (POST /simulate/validate). */
import { api, type ValidateResult } from '../api'
import { ExecutionFields } from '../execution'
import { CostFields, ExitFields, StrategyPicker, TextField, UniverseFields, WindowFields, SHOWN_FIELDS } from '../form'
import { validateBody } from '../requests'
import { useRun } from '../run'
import { BandsChart, McStrip } from '../svg'
import { ErrorBox, useI18n } from '../ui'
import { IsOosTable } from './is-oos-table'
import { RunButton } from './run-button'
import { RunScope } from './run-scope'
import { useRunOnSignal, type ViewProps } from './view'

export function ValidateView(p: ViewProps) {
  const { t, n } = useI18n()
  const run = useRun<ValidateResult>()
  useRunOnSignal(p.runSignal, () => void run.start(sig => api.validate(validateBody(p.s), sig)))
  const r = run.result
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
        <ExecutionFields s={p.s} set={p.set} error={run.error} />
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
          <IsOosTable oos={r.oos} />
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
