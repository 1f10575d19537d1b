/**
 * What a finished sweep says about overfitting, each figure with what it means: the
 * probability of backtest overfitting (CSCV), the deflated Sharpe of the best trial with the
 * ledger's n_trials, and the stability of the best trial's neighbourhood (docs/statistics.md).
 */
import type { SweepResult } from '../api'
import { Metric, useI18n } from '../ui'

export function Overfitting(props: { r: SweepResult }) {
  const { t, n } = useI18n()
  const { pbo, deflated_sharpe: dsr, stability } = props.r
  return (
    <section class="overfit" id="overfitting" aria-label={t('sw.overfit')}>
      <h3>{t('sw.overfit')}</h3>
      <dl class="metrics">
        <Metric label={t('sw.pbo')} id="sw-pbo">
          {pbo ? n(pbo.pbo, 3) : '—'}
        </Metric>
        <Metric label={t('sw.dsr')} id="sw-dsr">
          {dsr ? `${n(dsr.dsr, 3)} ${dsr.significant ? `✓ ${t('opt.sig')}` : `✗ ${t('opt.notsig')}`}` : '—'}
        </Metric>
        <Metric label={t('sw.ntrials')} id="sw-ntrials">
          {dsr ? dsr.n_trials : props.r.n_trials}
        </Metric>
        <Metric label={t('sw.stability')} id="sw-stability">
          {stability?.score === null || stability === null ? '—' : n(stability.score, 2)}
        </Metric>
      </dl>
      <p id="sw-pbo-explain">
        {pbo ? t('sw.pboExplain', { p: n(pbo.pbo * 100, 1), s: pbo.blocks, c: pbo.combinations, k: pbo.trials, d: pbo.days }) : t('sw.pboNone')}
      </p>
      <p id="sw-dsr-explain">
        {dsr ? t('sw.dsrExplain', { d: n(dsr.dsr, 3), sr: n(dsr.sharpe_annualized, 2), n: dsr.n_trials, obs: dsr.n_obs, trial: dsr.trial }) : t('sw.dsrNone')}
      </p>
      {stability && (
        <p id="sw-stability-explain">
          {stability.score === null
            ? t('sw.stabilityNone', { k: stability.neighbours })
            : t('sw.stabilityExplain', { s: n(stability.score, 2), k: stability.neighbours_with_value, drop: n(stability.drop_pct, 1) })}
        </p>
      )}
    </section>
  )
}
