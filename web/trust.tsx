/**
 * Trust: the execution-quality figures (GET /trust/metrics) and a Merkle day root
 * (GET /trust/merkle/{YYYYMMDD}), which the visitor can recompute in this browser from the
 * day's leaves (GET /trust/merkle/{YYYYMMDD}/leaves, web/merkle.ts).
 */
import { useEffect } from 'preact/hooks'
import { api, type MerkleDayResult, type TrustMetrics } from './api'
import { TextField } from './form'
import type { Key } from './i18n'
import { checkDay, type DayCheck } from './merkle'
import { useRun } from './run'
import { merkleDayKey } from './settings'
import { ErrorBox, Progress, useI18n } from './ui'
import type { ViewProps } from './views/view'

const iso = (s: string | null) => (s === null ? '—' : s.replace('T', ' ').slice(0, 19))
const dashed = (d: string) => (/^\d{8}$/.test(d) ? `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}` : d)

function Metrics(props: { m: TrustMetrics }) {
  const { t, n } = useI18n()
  const m = props.m
  const share = (v: number | null) => (v === null ? <span class="na">{t('stat.na')}</span> : `${n(v * 100, 1)} %`)
  const q = (x: { median: number | null; p90: number | null; samples: number }, digits: number, unit: string) =>
    x.samples === 0 ? <span class="na">{t('stat.na')}</span> : t('tu.quantiles', { m: n(x.median, digits) + unit, p: n(x.p90, digits) + unit, n: x.samples })
  const items: [string, Key, preact.ComponentChildren, Key][] = [
    ['published', 'tu.published', t('tu.publishedV', { d: m.signals_published_24h, w: m.signals_published_7d }), 'tu.published.x'],
    ['latency', 'tu.latency', q(m.publication_latency_s, 0, ' s'), 'tu.latency.x'],
    ['coverage', 'tu.coverage', share(m.scoring_coverage), 'tu.coverage.x'],
    ['final', 'tu.final', share(m.final_share), 'tu.final.x'],
    ['unscoreable', 'tu.unscoreable', share(m.unscoreable_share), 'tu.unscoreable.x'],
    ['slippage', 'tu.slippage', q(m.paper_vs_reference_slippage_pct, 3, ' %'), 'tu.slippage.x'],
    ['sltp', 'tu.sltp', share(m.paper_positions_with_sl_tp_share), 'tu.sltp.x'],
  ]
  return (
    <section class="results" id="trust-metrics" aria-label={t('tu.metrics', { w: m.window })}>
      <h2>{t('tu.metrics', { w: m.window })}</h2>
      <dl class="stats">
        {items.map(([id, label, value, x]) => (
          <div class="stat" id={`tm-${id}`}>
            <dt>{t(label)}</dt>
            <dd>
              <span class="stat-value">{value}</span>
              <span class="stat-x">{t(x)}</span>
            </dd>
          </div>
        ))}
      </dl>
      <p class="hint">
        {t('tu.generated', { t: iso(m.generated_at) })} {m.publication_latency_s.measured}
      </p>
    </section>
  )
}

interface Verified {
  date: string
  check: DayCheck
  published: string | null
  leaves: number
}

function DayRoot(props: { d: MerkleDayResult }) {
  const { t } = useI18n()
  const d = props.d
  const verify = useRun<Verified>()
  const v = verify.result && verify.result.date === d.date ? verify.result : null
  const run = () =>
    void verify.start(async sig => {
      const l = await api.merkleLeaves(d.date, sig)
      const check = await checkDay(l)
      // a sealed root never changes: the leaves must give the root shown above as well
      const agrees = !d.sealed || l.root === d.root
      return { date: l.date, check: { ...check, match: check.match && agrees }, published: l.root, leaves: l.leaves.length }
    })
  return (
    <section class="results" id="merkle-day" aria-label={t('tu.rootTitle', { d: dashed(d.date) })}>
      <h2>{t('tu.rootTitle', { d: dashed(d.date) })}</h2>
      <dl class="stats">
        <div class="stat" id="md-date">
          <dt>{t('tu.date')}</dt>
          <dd>{d.date}</dd>
        </div>
        <div class="stat" id="md-count">
          <dt>{t('tu.leafCount')}</dt>
          <dd>{d.leaf_count}</dd>
        </div>
        <div class="stat" id="md-sealed">
          <dt>{t('tu.sealed')}</dt>
          <dd>{d.sealed ? t('tu.sealedAt', { t: iso(d.sealed_at) }) : t('tu.notSealed')}</dd>
        </div>
        <div class="stat" id="md-algorithm">
          <dt>{t('tu.algorithm')}</dt>
          <dd>{d.algorithm}</dd>
        </div>
        <div class="stat stat-wide" id="md-root">
          <dt>{t('tu.root')}</dt>
          <dd class="mono">{d.root ?? t('tu.noRoot')}</dd>
        </div>
      </dl>
      <p class="hint">{t('tu.rootHint')}</p>
      <div class="run-bar">
        <button type="button" id="verify" onClick={run} disabled={verify.busy}>
          {t('tu.verify')}
        </button>
        {verify.busy && <span role="status">{t('tu.verifying')}</span>}
      </div>
      <p class="hint">{t('tu.verifyHint')}</p>
      <ErrorBox error={verify.error} />
      {v && (
        <div id="verify-result" role="status" class={v.check.match ? 'verify verify-ok' : 'verify verify-bad'}>
          <p>
            <strong>{v.check.match ? t('tu.match', { n: v.leaves }) : t('tu.mismatch')}</strong>
          </p>
          <p class="mono">{t('tu.computed', { r: v.check.computedRoot ?? t('tu.noRoot') })}</p>
          <p class="mono">{t('tu.publishedRoot', { r: v.published ?? t('tu.noRoot') })}</p>
          {v.check.badLeaves.length > 0 && <p>{t('tu.badLeaves', { l: v.check.badLeaves.slice(0, 20).join(', ') + (v.check.badLeaves.length > 20 ? ', …' : '') })}</p>}
          {!v.check.countOk && <p>{t('tu.badCount')}</p>}
        </div>
      )}
    </section>
  )
}

export function TrustView(p: ViewProps) {
  const { t } = useI18n()
  const metrics = useRun<TrustMetrics>()
  const day = useRun<MerkleDayResult>()
  const go = () => {
    void metrics.start(sig => api.trustMetrics(sig))
    void day.start(sig => api.merkleDay(merkleDayKey(p.s.tday), sig))
  }
  useEffect(() => {
    if (p.runSignal > 0 || !day.result) go()
  }, [p.runSignal])
  return (
    <>
      <ErrorBox error={metrics.error} />
      {metrics.result && <Metrics m={metrics.result} />}
      <form
        class="panel"
        noValidate
        aria-label={t('view.trust')}
        onSubmit={e => {
          e.preventDefault()
          p.commit()
        }}
      >
        <div class="row-fields">
          <TextField k="tday" label={t('tu.day')} s={p.s} set={p.set} error={day.error} type="date" api={['date']} />
        </div>
        <div class="run-bar">
          <button type="submit" class="primary" id="run" disabled={day.busy}>
            {t('tu.show')}
          </button>
          {day.busy && <Progress />}
        </div>
        <ErrorBox error={day.error} shownFields={['date']} />
      </form>
      {day.result && <DayRoot key={day.result.date} d={day.result} />}
    </>
  )
}
