/** The search settings a sweep and a walk-forward run share, and how a run in flight shows its progress and why it stopped. */
import { TextField } from '../form'
import type { SetSettings, Settings } from '../settings'
import { described, Field, problemFor, useI18n } from '../ui'

/** the objectives the server takes (its SWEEP_OBJECTIVES); one it does not know is sent as chosen and named by its 422 */
const OBJECTIVES = ['sharpe_ratio', 'sortino_ratio', 'calmar_ratio', 'profit_factor', 'total_return_pct', 'total_return_pct_portfolio', 'expectancy', 'win_rate', 'recovery_factor']

export function SearchFields(props: { s: Settings; set: SetSettings; error: unknown }) {
  const { t } = useI18n()
  const { s, set } = props
  const eo = problemFor(props.error, 'objective')
  return (
    <div class="row-fields">
      <Field id="f-method" label={t('sw.method')}>
        <select id="f-method" value={s.method} onChange={e => set({ method: (e.target as HTMLSelectElement).value })}>
          <option value="grid">{t('sw.grid')}</option>
          <option value="random">{t('sw.random')}</option>
        </select>
      </Field>
      {s.method === 'random' && (
        <>
          <TextField k="budget" api={['budget']} label={t('sw.budget')} s={s} set={set} error={props.error} inputMode="numeric" />
          <TextField k="seed" api={['seed']} label={t('sw.seed')} s={s} set={set} error={props.error} inputMode="numeric" />
        </>
      )}
      <Field id="f-objective" label={t('sw.objective')} error={eo}>
        <select {...described('f-objective', eo)} value={s.objective} onChange={e => set({ objective: (e.target as HTMLSelectElement).value })}>
          {OBJECTIVES.map(o => (
            <option value={o}>{o}</option>
          ))}
        </select>
      </Field>
      <TextField k="minTrades" api={['min_trades']} label={t('sw.minTrades')} s={s} set={set} error={props.error} inputMode="numeric" />
    </div>
  )
}

export function TrialsProgress(props: { state: string; done: number; total: number; id: string }) {
  const { t, n } = useI18n()
  const pct = props.total > 0 ? (100 * props.done) / props.total : 0
  return (
    <div class="trials-progress" id={props.id} role="status" aria-live="polite">
      <span class={`badge state-${props.state}`} id={`${props.id}-state`}>
        {t(`sw.state.${props.state}` as 'sw.state.done')}
      </span>
      <progress max={Math.max(1, props.total)} value={props.done} aria-label={t('sw.progress')} />
      <span id={`${props.id}-text`}>{t('sw.progressText', { done: props.done, total: props.total, p: n(pct, 0) })}</span>
    </div>
  )
}

export function StopReason(props: { state: string; reason: string | null }) {
  const { t } = useI18n()
  if (props.state !== 'cancelled' && props.state !== 'failed') return null
  return (
    <p class="warn" id="sw-stopped" role="alert">
      ⚠ {t(props.state === 'cancelled' ? 'sw.cancelled' : 'sw.failed', { reason: props.reason ?? '—' })}
    </p>
  )
}
