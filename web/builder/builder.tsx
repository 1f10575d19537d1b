/**
 * The builder: condition rows (field, operator, value) joined by AND or OR, the settings
 * of the indicators they use, or, for a tree with nested groups, its JSON. Fields and
 * params come from GET /builder/indicators; presets from GET /builder/presets.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
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
  in: 'op.in',
  not_in: 'op.not_in',
}
const isListOp = (op: Op) => op === 'in' || op === 'not_in'

type Stat = NonNullable<Leaf['stat']>
/** the window statistics a field can be read through (a new one fails the type check here) */
const STAT_KEYS: Record<Stat, Key> = { mean: 'stat.mean', min: 'stat.min', max: 'stat.max' }
const OPS = Object.keys(OP_KEYS) as Op[]

/** the candle's own fields, usable without any indicator */
const BASE_FIELDS: Record<BaseField, 'number'> = { close: 'number', open: 'number', high: 'number', low: 'number', volume: 'number', hour: 'number', weekday: 'number', next_hour: 'number' }

/** what a row shows: a leaf of these keys, compared with a number, a boolean, a list or a plain field (anything richer is edited as JSON) */
const ROW_KEYS = new Set(['field', 'op', 'value', 'value_bool', 'shift', 'stat', 'bars'])
function rowCanShow(n: ConditionNode): n is Leaf {
  if (!('field' in n) || !Object.keys(n).every(k => ROW_KEYS.has(k))) return false
  const v = (n as Leaf).value
  return typeof v !== 'object' || v === null || Array.isArray(v) || Object.keys(v).every(k => k === 'field' || k === 'shift')
}

export const emptyBuilder = (): BuilderSpec => ({
  name: 'Custom Strategy',
  dir: 'long',
  indicators: { rsi: {} },
  entry: { type: 'AND', conditions: [{ field: 'rsi', op: '<', value: 30 }] },
})

/** the rows of a flat tree (a leaf, or AND/OR of leaves), or null when it has nested groups */
export function flatRows(entry: ConditionNode): { logic: 'AND' | 'OR'; rows: Leaf[] } | null {
  if ('field' in entry) return rowCanShow(entry) ? { logic: 'AND', rows: [entry] } : null
  if ('type' in entry && (entry.type === 'AND' || entry.type === 'OR')) {
    const g = entry as Group
    if (g.conditions.every(rowCanShow)) return { logic: g.type, rows: g.conditions as Leaf[] }
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

type Kind = 'number' | 'bool' | 'field' | 'list'
const kindOf = (l: Leaf): Kind =>
  Array.isArray(l.value) ? 'list' : typeof l.value === 'boolean' || l.value_bool !== undefined ? 'bool' : typeof l.value === 'object' && l.value !== null ? 'field' : 'number'

export function Builder(props: {
  spec: BuilderSpec
  /** changes are functions of the latest spec, so two edits before a render never lose one */
  onUpdate: (fn: (s: BuilderSpec) => BuilderSpec) => void
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
  const update = props.onUpdate
  const withEntry = (x: BuilderSpec, entry: ConditionNode): BuilderSpec => ({ ...x, entry, indicators: indicatorsFor(entry, catalog, x.indicators) })
  const setEntry = (entry: ConditionNode) => update(x => withEntry(x, entry))
  const editRows = (fn: (rows: Leaf[], logic: 'AND' | 'OR') => { logic: 'AND' | 'OR'; rows: Leaf[] }) =>
    update(x => {
      const f = flatRows(x.entry)
      if (!f) return x
      const r = fn(f.rows, f.logic)
      return withEntry(x, { type: r.logic, conditions: r.rows })
    })
  const editRow = (i: number, fn: (row: Leaf) => Leaf) => editRows((rows, logic) => ({ logic, rows: rows.map((r, j) => (j === i ? fn(r) : r)) }))
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
          <input id="b-name" value={spec.name} maxLength={100} onInput={e => {
              const name = (e.target as HTMLInputElement).value
              update(x => ({ ...x, name }))
            }} />
        </div>
        <div class="field">
          <label for="b-dir">{t('direction')}</label>
          <select id="b-dir" value={spec.dir} onChange={e => {
              const dir = (e.target as HTMLSelectElement).value === 'long' ? 'long' : 'short'
              update(x => ({ ...x, dir }))
            }}>
            <option value="long">{t('long')}</option>
            <option value="short">{t('short')}</option>
          </select>
        </div>
      </div>
      {flat ? (
        <>
          <div class="field">
            <label for="b-logic">{t('builder.logic')}</label>
            <select id="b-logic" value={flat.logic} onChange={e => {
                const logic = (e.target as HTMLSelectElement).value === 'OR' ? 'OR' : 'AND'
                editRows(rows => ({ logic, rows }))
              }}>
              <option value="AND">{t('builder.and')}</option>
              <option value="OR">{t('builder.or')}</option>
            </select>
          </div>
          <ol class="cond-rows">
            {flat.rows.map((row, i) => {
              const kind = kindOf(row)
              const upd = (patch: Partial<Leaf> | ((r: Leaf) => Partial<Leaf>)) =>
                editRow(i, cur => {
                  const p = typeof patch === 'function' ? patch(cur) : patch
                  const next = { ...cur, ...p } as Leaf
                  // a new value replaces the legacy value_bool form
                  if (p.value !== undefined || 'value_bool' in p) delete next.value_bool
                  return next
                })
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
                        upd(cur => (fieldType(f) === 'boolean' ? { field: f, op: '==', value: true } : { field: f, value: kindOf(cur) === 'bool' ? 0 : cur.value }))
                      }}
                    >
                      {!Object.hasOwn(BASE_FIELDS, row.field) && !catalog.some(c => c.fields.includes(row.field)) && <option value={row.field}>{row.field}</option>}
                      {fieldOptions}
                    </select>
                  </div>
                  <div class="field">
                    <label for={`${id}-stat`}>{t('builder.stat')}</label>
                    <select
                      id={`${id}-stat`}
                      value={row.stat ?? ''}
                      onChange={e => {
                        const stat = (e.target as HTMLSelectElement).value as Stat | ''
                        editRow(i, cur => {
                          const next = { ...cur }
                          if (stat === '') {
                            delete next.stat
                            delete next.bars
                          } else {
                            next.stat = stat
                            next.bars = cur.bars ?? 10
                          }
                          return next
                        })
                      }}
                    >
                      <option value="">{t('stat.none')}</option>
                      {(Object.keys(STAT_KEYS) as Stat[]).map(x => (
                        <option value={x}>{t(STAT_KEYS[x])}</option>
                      ))}
                    </select>
                    {row.stat && (
                      <NumberText
                        id={`${id}-bars`}
                        label={t('builder.bars')}
                        value={row.bars}
                        onValue={v =>
                          editRow(i, cur => {
                            const next = { ...cur }
                            next.bars = (v ?? '') as number
                            return next
                          })
                        }
                      />
                    )}
                  </div>
                  <div class="field">
                    <label for={`${id}-op`}>{t('builder.op')}</label>
                    <select
                      id={`${id}-op`}
                      value={row.op}
                      onChange={e => {
                        const op = (e.target as HTMLSelectElement).value as Op
                        // in / not_in take a list; the other operators a single value
                        upd(cur =>
                          isListOp(op) && !Array.isArray(cur.value)
                            ? { op, value: typeof cur.value === 'number' ? [cur.value] : [] }
                            : !isListOp(op) && Array.isArray(cur.value)
                              ? { op, value: cur.value[0] ?? 0 }
                              : { op },
                        )
                      }}
                    >
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
                        upd(cur => ({
                          value: k === 'bool' ? true : k === 'field' ? { field: 'close' } : k === 'list' ? [] : 0,
                          op: k === 'list' ? (isListOp(cur.op) ? cur.op : 'in') : isListOp(cur.op) ? '==' : cur.op,
                        }))
                      }}
                    >
                      <option value="number">{t('builder.kind.number')}</option>
                      <option value="bool">{t('builder.kind.bool')}</option>
                      <option value="field">{t('builder.kind.field')}</option>
                      <option value="list">{t('builder.kind.list')}</option>
                    </select>
                  </div>
                  <div class="field">
                    <label for={`${id}-value`}>{t('builder.value')}</label>
                    {kind === 'number' && (
                      <NumberText id={`${id}-value`} value={row.value as number | string | undefined} onValue={v => upd({ value: (v ?? '') as number })} />
                    )}
                    {kind === 'list' && <ListText id={`${id}-value`} value={row.value as (number | string)[]} onValue={v => upd({ value: v as number[] })} />}
                    {kind === 'bool' && (
                      <select id={`${id}-value`} value={String(row.value_bool ?? row.value)} onChange={e => upd({ value: (e.target as HTMLSelectElement).value === 'true' })}>
                        <option value="true">true</option>
                        <option value="false">false</option>
                      </select>
                    )}
                    {kind === 'field' && (
                      <select
                        id={`${id}-value`}
                        value={(row.value as { field: string }).field}
                        onChange={e => {
                          const field = (e.target as HTMLSelectElement).value
                          upd(cur => ({ value: { ...(cur.value as { field: string; shift?: number }), field } }))
                        }}
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
                      onInput={e => {
                        const v = Number((e.target as HTMLInputElement).value)
                        editRow(i, cur => {
                          const next = { ...cur } as Leaf
                          if (v > 0 || !Number.isFinite(v)) next.shift = v
                          else delete next.shift
                          return next
                        })
                      }}
                    />
                  </div>
                  <button
                    type="button"
                    class="remove"
                    aria-label={t('builder.remove', { n: i + 1 })}
                    disabled={flat.rows.length === 1}
                    onClick={() => editRows((rows, logic) => ({ logic, rows: rows.filter((_, j) => j !== i) }))}
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
          <button type="button" class="secondary" id="add-row" onClick={() => editRows((rows, logic) => ({ logic, rows: [...rows, { field: 'close', op: '>', value: { field: 'ema_fast' } } as Leaf] }))}>
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
      <IndicatorParams spec={spec} catalog={catalog} onUpdate={update} />
    </fieldset>
  )
}

function IndicatorParams(props: { spec: BuilderSpec; catalog: readonly BuilderIndicator[]; onUpdate: (fn: (s: BuilderSpec) => BuilderSpec) => void }) {
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
                <NumberText
                  id={id}
                  placeholder={String(info.default)}
                  value={cur}
                  onValue={v =>
                    props.onUpdate(x => {
                      const params = { ...(x.indicators[ind.id] ?? {}) }
                      if (v === undefined) delete params[p]
                      else params[p] = v as number
                      return { ...x, indicators: { ...x.indicators, [ind.id]: params } }
                    })
                  }
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

/** '' → undefined; a number → that number; anything else as typed (sent so the server names the problem) */
function parseNumber(text: string): number | string | undefined {
  const t = text.trim()
  if (t === '') return undefined
  const n = Number(t)
  return Number.isFinite(n) ? n : t
}

/**
 * A number typed as text: the text is kept as typed ("0." stays "0." while the value is 0)
 * and follows the value only when it changes from outside (a preset, the address).
 */
function NumberText(props: { id: string; value: number | string | undefined; placeholder?: string; label?: string; onValue: (v: number | string | undefined) => void }) {
  const typed = useTypedText(props.value, v => (v === undefined ? '' : String(v)), (t, v) => parseNumber(t) === v)
  return (
    <input
      id={props.id}
      type="text"
      inputMode="decimal"
      placeholder={props.placeholder}
      aria-label={props.label}
      value={typed.text}
      onFocus={typed.onFocus}
      onBlur={typed.onBlur}
      onInput={e => {
        const v = (e.target as HTMLInputElement).value
        typed.setText(v)
        props.onValue(parseNumber(v))
      }}
    />
  )
}

/**
 * The text of an input that edits a parsed value. While the input has the focus the text
 * is kept as typed: the value coming back from the form can lag a keystroke behind under
 * load, and taking it then would drop what was typed since ("65.5" became "6"). It follows
 * the value when that changes from outside (a preset, the URL) or when the input is left.
 */
function useTypedText<V>(value: V, format: (v: V) => string, same: (text: string, v: V) => boolean) {
  const [text, setText] = useState(format(value))
  const focused = useRef(false)
  useEffect(() => {
    if (!focused.current && !same(text, value)) setText(format(value))
  }, [value])
  return {
    text,
    setText,
    onFocus: () => {
      focused.current = true
    },
    onBlur: () => {
      focused.current = false
      if (!same(text, value)) setText(format(value))
    },
  }
}

/** A list of numbers typed as "2, 3, 22": the text kept as typed, the value the parsed list (a non-number sent as typed). */
function ListText(props: { id: string; value: (number | string)[]; onValue: (v: (number | string)[]) => void }) {
  const parse = (t: string) => t.split(/[\s,]+/).filter(Boolean).map(x => (Number.isFinite(Number(x)) ? Number(x) : x))
  const typed = useTypedText(props.value, v => v.join(', '), (t, v) => JSON.stringify(parse(t)) === JSON.stringify(v))
  return (
    <input
      id={props.id}
      type="text"
      inputMode="decimal"
      placeholder="2, 3, 22"
      value={typed.text}
      onFocus={typed.onFocus}
      onBlur={typed.onBlur}
      onInput={e => {
        const v = (e.target as HTMLInputElement).value
        typed.setText(v)
        props.onValue(parse(v))
      }}
    />
  )
}
