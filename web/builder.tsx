/**
 * The builder: condition rows (field, operator, value) joined by AND or OR, the settings
 * of the indicators they use, or, for a tree with nested groups, its JSON. Fields and
 * params come from GET /builder/indicators; presets from GET /builder/presets.
 */
import { useState } from 'preact/hooks'
import type { BaseField } from '../src/strategies/catalog'
import type { BuilderIndicator, PresetItem } from './api'
import type { Key } from './i18n'
import type { BuilderSpec, ConditionNode } from './settings'
import { described, useI18n } from './ui'

type Leaf = Extract<ConditionNode, { field: string }>
type Op = Leaf['op']
type Group = Extract<ConditionNode, { type: 'AND' | 'OR' }>

/** every operator of the condition language, with its words (a new operator fails the type check here) */
const OP_KEYS: Record<Op, Key> = {
  '==': 'op.==',
  '!=': 'op.!=',
  '>': 'op.>',
  '>=': 'op.>=',
  '<': 'op.<',
  '<=': 'op.<=',
  crosses_above: 'op.crosses_above',
  crosses_below: 'op.crosses_below',
}
const OPS = Object.keys(OP_KEYS) as Op[]

/** the candle's own fields, usable without any indicator */
const BASE_FIELDS: Record<BaseField, 'number'> = { close: 'number', open: 'number', high: 'number', low: 'number', volume: 'number', hour: 'number', weekday: 'number' }

export const emptyBuilder = (): BuilderSpec => ({
  name: 'Custom Strategy',
  dir: 'long',
  indicators: { rsi: {} },
  entry: { type: 'AND', conditions: [{ field: 'rsi', op: '<', value: 30 }] },
})

/** the rows of a flat tree (a leaf, or AND/OR of leaves), or null when it has nested groups */
export function flatRows(entry: ConditionNode): { logic: 'AND' | 'OR'; rows: Leaf[] } | null {
  if ('field' in entry) return { logic: 'AND', rows: [entry as Leaf] }
  if ('type' in entry && (entry.type === 'AND' || entry.type === 'OR')) {
    const g = entry as Group
    if (g.conditions.every(c => 'field' in c)) return { logic: g.type, rows: g.conditions as Leaf[] }
  }
  return null
}

/** the indicators whose fields a tree uses, keeping the params already set */
export function indicatorsFor(entry: ConditionNode, catalog: readonly BuilderIndicator[], current: BuilderSpec['indicators']): BuilderSpec['indicators'] {
  const used = new Set<string>()
  const walk = (n: unknown) => {
    if (!n || typeof n !== 'object') return
    const o = n as Record<string, unknown>
    if (typeof o.field === 'string') used.add(o.field)
    const v = o.value as Record<string, unknown> | undefined
    if (v && typeof v === 'object' && typeof v.field === 'string') used.add(v.field)
    if (Array.isArray(o.conditions)) o.conditions.forEach(walk)
    if (o.condition) walk(o.condition)
  }
  walk(entry)
  const out: BuilderSpec['indicators'] = {}
  for (const ind of catalog) if (ind.fields.some(f => used.has(f))) out[ind.id] = current[ind.id] ?? {}
  return out
}

type Kind = 'number' | 'bool' | 'field'
const kindOf = (l: Leaf): Kind => (typeof l.value === 'boolean' || l.value_bool !== undefined ? 'bool' : typeof l.value === 'object' && l.value !== null ? 'field' : 'number')

export function Builder(props: {
  spec: BuilderSpec
  onChange: (s: BuilderSpec) => void
  catalog: readonly BuilderIndicator[]
  presets: readonly PresetItem[]
  preset: string
  onPreset: (id: string) => void
  rowErrors: Map<number, string[]>
  treeErrors: string[]
}) {
  const { t } = useI18n()
  const { spec, catalog } = props
  const flat = flatRows(spec.entry)
  const [json, setJson] = useState<string | null>(null)
  const [jsonErr, setJsonErr] = useState('')
  const fieldType = (f: string): 'number' | 'boolean' => {
    for (const ind of catalog) {
      const info = ind.field_info.find(x => x.name === f)
      if (info) return info.type === 'boolean' ? 'boolean' : 'number'
    }
    return 'number'
  }
  const setEntry = (entry: ConditionNode) => props.onChange({ ...spec, entry, indicators: indicatorsFor(entry, catalog, spec.indicators) })
  const setRows = (logic: 'AND' | 'OR', rows: Leaf[]) => setEntry({ type: logic, conditions: rows })
  const fieldOptions = (
    <>
      <optgroup label="candle">
        {Object.keys(BASE_FIELDS).map(f => (
          <option value={f}>{f}</option>
        ))}
      </optgroup>
      {catalog.map(ind => (
        <optgroup label={ind.name}>
          {ind.fields.map(f => (
            <option value={f}>{f}</option>
          ))}
        </optgroup>
      ))}
    </>
  )
  return (
    <fieldset class="builder" id="builder">
      <legend>{t('builder.title')}</legend>
      <div class="row-fields">
        <div class="field">
          <label for="b-preset">{t('preset')}</label>
          <select id="b-preset" value={props.preset} onChange={e => props.onPreset((e.target as HTMLSelectElement).value)}>
            <option value="">{t('preset.none')}</option>
            {props.presets.map(p => (
              <option value={p.id}>
                {p.name} ({t(p.direction === 'long' ? 'long' : 'short')})
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="b-name">{t('builder.name')}</label>
          <input id="b-name" value={spec.name} maxLength={100} onInput={e => props.onChange({ ...spec, name: (e.target as HTMLInputElement).value })} />
        </div>
        <div class="field">
          <label for="b-dir">{t('direction')}</label>
          <select id="b-dir" value={spec.dir} onChange={e => props.onChange({ ...spec, dir: (e.target as HTMLSelectElement).value === 'long' ? 'long' : 'short' })}>
            <option value="long">{t('long')}</option>
            <option value="short">{t('short')}</option>
          </select>
        </div>
      </div>
      {flat ? (
        <>
          <div class="field">
            <label for="b-logic">{t('builder.logic')}</label>
            <select id="b-logic" value={flat.logic} onChange={e => setRows((e.target as HTMLSelectElement).value === 'OR' ? 'OR' : 'AND', flat.rows)}>
              <option value="AND">{t('builder.and')}</option>
              <option value="OR">{t('builder.or')}</option>
            </select>
          </div>
          <ol class="cond-rows">
            {flat.rows.map((row, i) => {
              const kind = kindOf(row)
              const upd = (patch: Partial<Leaf>) => {
                const next = { ...row, ...patch } as Leaf
                if ('value_bool' in patch === false && next.value_bool !== undefined && patch.value !== undefined) delete next.value_bool
                setRows(flat.logic, flat.rows.map((r, j) => (j === i ? next : r)))
              }
              const id = `c${i}`
              const errs = props.rowErrors.get(i) ?? []
              return (
                <li class={`cond-row${errs.length ? ' field-error' : ''}`} aria-label={t('builder.row', { n: i + 1 })} data-row={i}>
                  <div class="field">
                    <label for={`${id}-field`}>{t('builder.field')}</label>
                    <select
                      id={`${id}-field`}
                      value={row.field}
                      aria-invalid={errs.length ? true : undefined}
                      aria-describedby={errs.length ? `${id}-err` : undefined}
                      onChange={e => {
                        const f = (e.target as HTMLSelectElement).value
                        upd(fieldType(f) === 'boolean' ? { field: f, op: '==', value: true } : { field: f, value: kind === 'bool' ? 0 : row.value })
                      }}
                    >
                      {!Object.hasOwn(BASE_FIELDS, row.field) && !catalog.some(c => c.fields.includes(row.field)) && <option value={row.field}>{row.field}</option>}
                      {fieldOptions}
                    </select>
                  </div>
                  <div class="field">
                    <label for={`${id}-op`}>{t('builder.op')}</label>
                    <select id={`${id}-op`} value={row.op} onChange={e => upd({ op: (e.target as HTMLSelectElement).value as Op })}>
                      {OPS.map(o => (
                        <option value={o}>
                          {o} · {t(OP_KEYS[o])}
                        </option>
                      ))}
                    </select>
                  </div>
                  <div class="field">
                    <label for={`${id}-kind`}>{t('builder.valueKind')}</label>
                    <select
                      id={`${id}-kind`}
                      value={kind}
                      onChange={e => {
                        const k = (e.target as HTMLSelectElement).value as Kind
                        upd({ value: k === 'bool' ? true : k === 'field' ? { field: 'close' } : 0, value_bool: undefined })
                      }}
                    >
                      <option value="number">{t('builder.kind.number')}</option>
                      <option value="bool">{t('builder.kind.bool')}</option>
                      <option value="field">{t('builder.kind.field')}</option>
                    </select>
                  </div>
                  <div class="field">
                    <label for={`${id}-value`}>{t('builder.value')}</label>
                    {kind === 'number' && (
                      <input
                        id={`${id}-value`}
                        type="text"
                        inputMode="decimal"
                        value={String(row.value ?? '')}
                        onChange={e => {
                          const raw = (e.target as HTMLInputElement).value.trim()
                          const v = Number(raw)
                          // sent as typed when it is not a number, so the server names the problem
                          upd({ value: raw !== '' && Number.isFinite(v) ? v : (raw as unknown as number) })
                        }}
                      />
                    )}
                    {kind === 'bool' && (
                      <select id={`${id}-value`} value={String(row.value_bool ?? row.value)} onChange={e => upd({ value: (e.target as HTMLSelectElement).value === 'true', value_bool: undefined })}>
                        <option value="true">true</option>
                        <option value="false">false</option>
                      </select>
                    )}
                    {kind === 'field' && (
                      <select
                        id={`${id}-value`}
                        value={(row.value as { field: string }).field}
                        onChange={e => upd({ value: { ...(row.value as { field: string; shift?: number }), field: (e.target as HTMLSelectElement).value } })}
                      >
                        {fieldOptions}
                      </select>
                    )}
                  </div>
                  <div class="field field-narrow">
                    <label for={`${id}-shift`}>{t('builder.shift')}</label>
                    <input
                      id={`${id}-shift`}
                      type="number"
                      min={0}
                      max={50}
                      value={row.shift ?? 0}
                      onChange={e => {
                        const v = Number((e.target as HTMLInputElement).value)
                        const next = { ...row } as Leaf
                        if (v > 0 || !Number.isFinite(v)) next.shift = v
                        else delete next.shift
                        setRows(flat.logic, flat.rows.map((r, j) => (j === i ? next : r)))
                      }}
                    />
                  </div>
                  <button
                    type="button"
                    class="remove"
                    aria-label={t('builder.remove', { n: i + 1 })}
                    disabled={flat.rows.length === 1}
                    onClick={() => setRows(flat.logic, flat.rows.filter((_, j) => j !== i))}
                  >
                    ✕
                  </button>
                  {errs.length > 0 && (
                    <small class="error-text row-error" id={`${id}-err`} role="alert">
                      {errs.map(e => `⚠ ${e}`).join(' ')}
                    </small>
                  )}
                </li>
              )
            })}
          </ol>
          <button type="button" class="secondary" id="add-row" onClick={() => setRows(flat.logic, [...flat.rows, { field: 'close', op: '>', value: { field: 'ema_fast' } } as Leaf])}>
            + {t('builder.add')}
          </button>
        </>
      ) : (
        <div class="field">
          <p class="hint">{t('builder.nested')}</p>
          <label for="b-json">{t('builder.json')}</label>
          <textarea
            rows={10}
            {...described('b-json', jsonErr ? { field: 'entry', msg: jsonErr, input: undefined } : null)}
            value={json ?? JSON.stringify(spec.entry, null, 2)}
            onInput={e => {
              const v = (e.target as HTMLTextAreaElement).value
              setJson(v)
              try {
                setEntry(JSON.parse(v) as ConditionNode)
                setJsonErr('')
              } catch (err) {
                setJsonErr(t('builder.jsonBad', { e: err instanceof Error ? err.message : String(err) }))
              }
            }}
          />
          {jsonErr && (
            <small class="error-text" id="b-json-err" role="alert">
              ⚠ {jsonErr}
            </small>
          )}
        </div>
      )}
      {props.treeErrors.length > 0 && (
        <div class="error-box" role="alert">
          {props.treeErrors.map(e => (
            <p>⚠ {e}</p>
          ))}
        </div>
      )}
      <IndicatorParams spec={spec} catalog={catalog} onChange={props.onChange} />
    </fieldset>
  )
}

function IndicatorParams(props: { spec: BuilderSpec; catalog: readonly BuilderIndicator[]; onChange: (s: BuilderSpec) => void }) {
  const { t } = useI18n()
  const used = props.catalog.filter(c => c.id in props.spec.indicators && Object.keys(c.param_info).length > 0)
  if (used.length === 0) return null
  return (
    <details class="params" open>
      <summary>{t('builder.params')}</summary>
      {used.map(ind => (
        <fieldset class="row-fields">
          <legend>{ind.name}</legend>
          {Object.entries(ind.param_info).map(([p, info]) => {
            const id = `p-${ind.id}-${p}`
            const cur = props.spec.indicators[ind.id]?.[p]
            return (
              <div class="field field-narrow">
                <label for={id} title={info.description}>
                  {p}
                </label>
                <input
                  id={id}
                  type="text"
                  inputMode="decimal"
                  placeholder={String(info.default)}
                  value={cur === undefined ? '' : String(cur)}
                  onChange={e => {
                    const raw = (e.target as HTMLInputElement).value.trim()
                    const params = { ...(props.spec.indicators[ind.id] ?? {}) }
                    if (raw === '') delete params[p]
                    else params[p] = Number.isFinite(Number(raw)) ? Number(raw) : (raw as unknown as number)
                    props.onChange({ ...props.spec, indicators: { ...props.spec.indicators, [ind.id]: params } })
                  }}
                />
                <small class="hint">
                  {info.min}–{info.max}
                </small>
              </div>
            )
          })}
        </fieldset>
      ))}
    </details>
  )
}
