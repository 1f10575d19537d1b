/**
 * The settings form pieces every run view shares: the strategy (registry or builder) and
 * the run fields (exits, costs, universe, dates, timeframe). Inputs are free text sent as
 * typed: the ranges are the server's, and its 422 is shown next to the field it names.
 */
import type { Timeframe } from '../src/market/timeframe'
import type { Meta } from './meta'
import { Builder } from './builder/builder'
import type { SetSettings, Settings } from './settings'
import { described, Field, problemFor, useI18n } from './ui'

export type { Meta }

/** request field → the form field that shows its problems */
export const FIELD_OF: Record<string, keyof Settings> = {
  strategy: 'strategy',
  sl_pct: 'sl',
  tp_pct: 'tp',
  max_bars: 'bars',
  leverage: 'lev',
  fee_pct: 'fee',
  top_n: 'topN',
  symbols: 'symbols',
  symbol: 'symbol',
  start_date: 'from',
  end_date: 'to',
  timeframe: 'tf',
  oos_pct: 'oos',
  n_simulations: 'sims',
  sl_values: 'slGrid',
  tp_values: 'tpGrid',
  slippage: 'slip',
  impact_k: 'impactK',
  tp_order: 'tpOrder',
  maker_fee_pct: 'makerFee',
  liquidation_fee_pct: 'liqFee',
  margin: 'margin',
  intrabar: 'intrabar',
}
export const SHOWN_FIELDS = Object.keys(FIELD_OF)

/** the server's timeframes (a type-only import keeps the bundle free of server code; a new timeframe fails the type check here) */
export const TIMEFRAME_HOURS: Record<Timeframe, number> = { '1H': 1, '2H': 2, '4H': 4, '6H': 6, '12H': 12, '1D': 24, '1W': 168 }
const TIMEFRAMES = Object.keys(TIMEFRAME_HOURS) as Timeframe[]


/** the problem the last error has for a form field (`api`: the request fields it stands for, when not FIELD_OF's) */
export function err(error: unknown, key: keyof Settings, api?: string[]) {
  return problemFor(error, ...(api ?? Object.entries(FIELD_OF).filter(([, v]) => v === key).map(([k]) => k)))
}

export function TextField(props: { k: keyof Settings; api?: string[]; label: string; s: Settings; set: (p: Partial<Settings>) => void; error: unknown; hint?: string; type?: 'text' | 'date'; inputMode?: 'decimal' | 'numeric' | 'text' }) {
  const e = err(props.error, props.k, props.api)
  const id = `f-${props.k}`
  const onInput = (ev: Event) => props.set({ [props.k]: (ev.target as HTMLInputElement).value } as Partial<Settings>)
  return (
    <Field id={id} label={props.label} error={e} hint={props.hint}>
      {props.type === 'date' ? (
        <input {...described(id, e, props.hint)} type="date" value={String(props.s[props.k] ?? '')} onInput={onInput} />
      ) : (
        <input {...described(id, e, props.hint)} type="text" inputMode={props.inputMode ?? 'decimal'} value={String(props.s[props.k] ?? '')} onInput={onInput} />
      )}
    </Field>
  )
}

export function StrategyPicker(props: {
  s: Settings
  set: SetSettings
  meta: Meta
  error: unknown
  allowBuilder: boolean
  onPreset: (id: string) => void
  rowErrors: Map<number, string[]>
  treeErrors: string[]
}) {
  const { t } = useI18n()
  const { s, set, meta } = props
  const builder = props.allowBuilder && s.mode === 'builder'
  const e = err(props.error, 'strategy')
  const current = meta.strategies.find(x => x.id === s.strategy)
  return (
    <>
      {props.allowBuilder && (
        <fieldset class="mode">
          <legend>{t('mode.label')}</legend>
          <label>
            <input type="radio" name="mode" value="registry" checked={!builder} onChange={() => set({ mode: 'registry' })} /> {t('mode.registry')}
          </label>
          <label>
            <input type="radio" name="mode" value="builder" checked={builder} onChange={() => set({ mode: 'builder' })} /> {t('mode.builder')}
          </label>
        </fieldset>
      )}
      {!builder && (
        <Field id="f-strategy" label={t('strategy')} error={e} hint={current?.description}>
          <select {...described('f-strategy', e, current?.description)} value={s.strategy} onChange={ev => set({ strategy: (ev.target as HTMLSelectElement).value })}>
            {!current && <option value={s.strategy}>{s.strategy}</option>}
            {meta.strategies.map(x => (
              <option value={x.id}>
                {x.name} · {t(x.default_params.direction === 'long' ? 'long' : 'short')} · {x.default_params.status}
              </option>
            ))}
          </select>
        </Field>
      )}
      {builder && s.builder && (
        <Builder
          spec={s.builder}
          onUpdate={fn => set(x => ({ builder: fn(x.builder ?? s.builder!) }))}
          catalog={meta.indicators}
          presets={meta.presets}
          preset={s.preset}
          onPreset={props.onPreset}
          rowErrors={props.rowErrors}
          treeErrors={props.treeErrors}
        />
      )}
    </>
  )
}

/** the strategy's own default for a blank field, as a hint */
export function strategyDefaults(s: Settings, meta: Meta): { sl: number; tp: number; bars: number } | null {
  if (s.mode === 'builder') return { sl: 10, tp: 8, bars: 48 }
  const st = meta.strategies.find(x => x.id === s.strategy)
  return st ? { sl: st.default_params.sl_pct, tp: st.default_params.tp_pct, bars: st.default_params.max_bars } : null
}

export function ExitFields(props: { s: Settings; set: (p: Partial<Settings>) => void; meta: Meta; error: unknown; bars?: boolean }) {
  const { t } = useI18n()
  const d = strategyDefaults(props.s, props.meta)
  const hint = (v: number | undefined) => (v === undefined ? undefined : t(props.s.mode === 'builder' ? 'default.plain' : 'default.strategy', { v }))
  return (
    <div class="row-fields">
      <TextField k="sl" label={t('sl')} {...props} hint={hint(d?.sl)} />
      <TextField k="tp" label={t('tp')} {...props} hint={hint(d?.tp)} />
      {props.bars !== false && <TextField k="bars" label={t('bars')} {...props} hint={hint(d?.bars)} inputMode="numeric" />}
    </div>
  )
}

export function CostFields(props: { s: Settings; set: (p: Partial<Settings>) => void; error: unknown; feeFixed?: boolean }) {
  const { t } = useI18n()
  return (
    <div class="row-fields">
      <TextField k="lev" label={t('lev')} {...props} inputMode="numeric" />
      {props.feeFixed ? (
        <div class="field">
          <span class="label">{t('fee')}</span>
          <small class="hint" id="fee-fixed">
            {t('fee.fixed')}
          </small>
        </div>
      ) : (
        <TextField k="fee" label={t('fee')} {...props} />
      )}
    </div>
  )
}

export function UniverseFields(props: { s: Settings; set: (p: Partial<Settings>) => void; error: unknown; allowSymbols: boolean }) {
  const { t } = useI18n()
  const { s, set } = props
  return (
    <div class="row-fields">
      {props.allowSymbols && (
        <div class="field">
          <label for="f-universe">{t('universe')}</label>
          <select id="f-universe" value={s.universe} onChange={e => set({ universe: (e.target as HTMLSelectElement).value === 'symbols' ? 'symbols' : 'top' })}>
            <option value="top">{t('universe.top')}</option>
            <option value="symbols">{t('universe.symbols')}</option>
          </select>
        </div>
      )}
      {s.universe === 'symbols' && props.allowSymbols ? (
        <TextField k="symbols" label={t('symbols')} {...props} inputMode="text" />
      ) : (
        <>
          <TextField k="topN" label={t('topN')} {...props} inputMode="numeric" />
          <div class="field">
            <label for="f-asof">{t('asOf')}</label>
            <select id="f-asof" value={s.asOf} onChange={e => {
              const v = (e.target as HTMLSelectElement).value
              set({ asOf: v === 'point_in_time' || v === 'current' ? v : '' })
            }}>
              <option value="">{t('asOf.auto')}</option>
              <option value="point_in_time">{t('asOf.then')}</option>
              <option value="current">{t('asOf.today')}</option>
            </select>
          </div>
        </>
      )}
    </div>
  )
}

export function WindowFields(props: { s: Settings; set: (p: Partial<Settings>) => void; error: unknown; comp?: boolean }) {
  const { t } = useI18n()
  const { s, set } = props
  const e = err(props.error, 'tf')
  return (
    <div class="row-fields">
      <TextField k="from" label={t('from')} {...props} type="date" inputMode="text" />
      <TextField k="to" label={t('to')} {...props} type="date" inputMode="text" />
      <Field id="f-tf" label={t('tf')} error={e}>
        <select {...described('f-tf', e)} value={s.tf} onChange={ev => set({ tf: (ev.target as HTMLSelectElement).value })}>
          {TIMEFRAMES.map(x => (
            <option value={x}>{x}</option>
          ))}
        </select>
      </Field>
      {props.comp !== false && (
        <div class="field field-check">
          <input id="f-comp" type="checkbox" checked={s.comp} onChange={ev => set({ comp: (ev.target as HTMLInputElement).checked })} />
          <label for="f-comp">{t('comp')}</label>
        </div>
      )}
    </div>
  )
}

