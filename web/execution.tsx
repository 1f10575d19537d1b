/**
 * Issue 25 on the page: the "Execution" settings group (minute detail inside the bar,
 * slippage, impact k, take-profit order, maker and liquidation fees, margin model) and, in the results, where the edge
 * went (fees, funding, slippage in USD and in % of the notional traded) and the capacity
 * curve as a small chart (total return against the position size, log scale).
 */
import type { RunResult } from './api'
import { described, Field, Metric, useI18n } from './ui'
import { err, TextField } from './form'
import type { Settings } from './settings'

type Set = (p: Partial<Settings>) => void

function Choice(props: { k: keyof Settings; api: string; label: string; options: [string, string][]; s: Settings; set: Set; error: unknown }) {
  const id = `f-${props.k}`
  const e = err(props.error, props.k, [props.api])
  return (
    <Field id={id} label={props.label} error={e}>
      <select {...described(id, e)} value={String(props.s[props.k])} onChange={ev => props.set({ [props.k]: (ev.target as HTMLSelectElement).value } as Partial<Settings>)}>
        {props.options.map(([v, l]) => (
          <option value={v}>{l}</option>
        ))}
      </select>
    </Field>
  )
}

const INTRABAR = ['detail', 'bar', 'detail_required'] as const

/** how exits inside a bar are found (the API's `intrabar`); a value from the address that is none of them is kept and sent, so the 422 shows here */
function IntrabarField(props: { s: Settings; set: Set; error: unknown }) {
  const { t } = useI18n()
  const e = err(props.error, 'intrabar')
  const hint = t('intrabar.hint')
  return (
    <Field id="f-intrabar" label={t('intrabar')} error={e} hint={hint}>
      <select {...described('f-intrabar', e, hint)} value={props.s.intrabar} onChange={ev => props.set({ intrabar: (ev.target as HTMLSelectElement).value })}>
        {!(INTRABAR as readonly string[]).includes(props.s.intrabar) && <option value={props.s.intrabar}>{props.s.intrabar}</option>}
        {INTRABAR.map(v => (
          <option value={v}>{t(`intrabar.${v}`)}</option>
        ))}
      </select>
    </Field>
  )
}

export function ExecutionFields(props: { s: Settings; set: Set; error: unknown }) {
  const { t } = useI18n()
  return (
    <fieldset class="execution" id="execution">
      <legend>{t('exec.title')}</legend>
      <div class="row-fields">
        <IntrabarField {...props} />
        <Choice k="slip" api="slippage" label={t('exec.slippage')} options={[['impact', t('exec.slippage.impact')], ['none', t('exec.slippage.none')]]} {...props} />
        <TextField k="impactK" label={t('exec.impactK')} hint={t('exec.impactK.hint')} {...props} />
        <Choice k="tpOrder" api="tp_order" label={t('exec.tpOrder')} options={[['market', t('exec.tpOrder.market')], ['limit', t('exec.tpOrder.limit')]]} {...props} />
        <TextField k="makerFee" label={t('exec.makerFee')} {...props} />
        <Choice k="margin" api="margin" label={t('exec.margin')} options={[['brackets', t('exec.margin.brackets')], ['flat', t('exec.margin.flat')]]} {...props} />
        <TextField k="liqFee" label={t('exec.liqFee')} {...props} />
      </div>
    </fieldset>
  )
}

const W = 640
const H = 150

/** total_return_pct of the capacity curve against per_coin_usd (log scale), the run's own size first */
function CapacityChart(props: { capacity: NonNullable<RunResult['capacity']> }) {
  const { t, n } = useI18n()
  const pts = props.capacity.curve
  const ys = pts.map(p => p.total_return_pct)
  const lo = Math.min(0, ...ys)
  const hi = Math.max(0, ...ys)
  const pad = (hi - lo) * 0.1 || 1
  const x = (i: number) => 50 + (i / Math.max(1, pts.length - 1)) * (W - 100)
  const y = (v: number) => 15 + (1 - (v - (lo - pad)) / (hi - lo + 2 * pad)) * (H - 45)
  const label = pts.map(p => `${n(p.per_coin_usd, 0)} USD: ${n(p.total_return_pct, 1)} %`).join('; ')
  return (
    <figure class="svg-fig" id="capacity-chart">
      <figcaption>{t('cap.title')}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${t('cap.title')}: ${label}`}>
        <line x1="40" x2={W - 40} y1={y(0)} y2={y(0)} stroke="#94a3b8" stroke-dasharray="4 3" />
        <polyline fill="none" stroke="#1d4ed8" stroke-width="2.5" points={pts.map((p, i) => `${x(i)},${y(p.total_return_pct)}`).join(' ')} />
        {pts.map((p, i) => (
          <g>
            <circle cx={x(i)} cy={y(p.total_return_pct)} r="4" fill={p.leverage_allowed ? '#1d4ed8' : '#ffffff'} stroke="#1d4ed8" stroke-width="2" />
            <text x={x(i)} y={y(p.total_return_pct) - 9} font-size="11" text-anchor="middle">
              {n(p.total_return_pct, 1)} %
            </text>
            <text x={x(i)} y={H - 8} font-size="11" text-anchor="middle">
              {p.multiple}× · {n(p.per_coin_usd, 0)} $
            </text>
          </g>
        ))}
      </svg>
      <p class="hint" id="half-edge">
        {props.capacity.size_at_half_edge_usd === null ? t('cap.halfNone') : t('cap.half', { usd: n(props.capacity.size_at_half_edge_usd, 0) })}
        {pts.some(p => !p.leverage_allowed) && ` ${t('cap.notAllowed')}`}
      </p>
    </figure>
  )
}

const NAMED_MARK_COINS = 5

/** the candles liquidation was tested on (execution.liquidation_price_source) in words; a value the page does not know is shown as the server writes it */
function liquidationSource(execution: NonNullable<RunResult['execution']>, coins: number, t: ReturnType<typeof useI18n>['t']): string {
  const src = execution.liquidation_price_source as string
  if (src === 'last' || src === 'mark') return t(`costs.liqSrc.${src}`)
  if (src !== 'mixed') return src
  const marked = execution.coins_mark_price
  const named = marked.slice(0, NAMED_MARK_COINS).join(', ') + (marked.length > NAMED_MARK_COINS ? ', …' : '')
  return t('costs.liqSrc.mixed', { n: marked.length, of: coins, coins: named })
}

export function CostsAndCapacity(props: { r: RunResult }) {
  const { t, n } = useI18n()
  const { costs, capacity, execution } = props.r
  if (!costs) return null
  const rows: [string, number, number][] = [
    [t('costs.fees'), costs.fees_usd, costs.fees_pct],
    [t('costs.funding'), costs.funding_usd, costs.funding_pct],
    [t('costs.slippage'), costs.slippage_usd, costs.slippage_pct],
  ]
  return (
    <section aria-labelledby="costs-h" id="costs">
      <h3 id="costs-h">{t('costs.title')}</h3>
      <table class="data" id="costs-table">
        <caption>{t('costs.caption', { usd: n(costs.traded_notional_usd, 0) })}</caption>
        <thead>
          <tr>
            <th scope="col">{t('costs.kind')}</th>
            <th scope="col">USD</th>
            <th scope="col">{t('costs.ofNotional')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([k, usd, pct]) => (
            <tr>
              <th scope="row">{k}</th>
              <td class="num">{n(usd, 2)}</td>
              <td class="num">{n(pct, 4)} %</td>
            </tr>
          ))}
        </tbody>
      </table>
      {execution && (
        <>
          <dl class="metrics" id="liq-source">
            <Metric label={t('costs.liqSrc')} id="liq-source-value">
              {liquidationSource(execution, props.r.coins_used, t)}
            </Metric>
          </dl>
          <p class="hint" id="margin-note">
            {t('costs.margin', { with: execution.coins_with_brackets, flat: execution.coins_flat_margin.length })} {t('costs.liqSrc.hint')}
          </p>
        </>
      )}
      {capacity && props.r.total_trades > 0 && <CapacityChart capacity={capacity} />}
    </section>
  )
}
