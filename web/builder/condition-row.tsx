import type { BuilderIndicator } from '../api'
import { useI18n } from '../ui'
import { ConditionValue } from './condition-value'
import { FieldOptions } from './field-options'
import { NumberText } from './number-text'
import { TypedTextInput } from './typed-text'
import { fieldType, kindOf, type Kind, type Leaf, type LeafPatch } from './tree'
import { BASE_FIELDS, FIELD_TIMEFRAMES, isListOp, MARKET_FIELDS, OP_KEYS, OPS, STAT_KEYS, type Op, type Stat } from './vocabulary'

/**
 * One condition as a row: field, read as the value or a statistic over n bars, operator,
 * the value's kind and the value, shift (bars back), a remove button, and the problems the
 * server found with this condition (`entry.conditions[i]…`).
 */
export function ConditionRow(props: {
  row: Leaf
  /** the row's place in the tree's conditions, from 0 */
  index: number
  errors: string[]
  catalog: readonly BuilderIndicator[]
  /** changes are functions of the latest row, so two edits before a render never lose one */
  onEdit: (fn: (row: Leaf) => Leaf) => void
  removable: boolean
  onRemove: () => void
}) {
  const { t } = useI18n()
  const { row, catalog } = props
  const i = props.index
  const kind = kindOf(row)
  const editRow = props.onEdit
  const upd = (patch: LeafPatch) =>
    editRow(cur => {
      const p = typeof patch === 'function' ? patch(cur) : patch
      const next = { ...cur, ...p } as Leaf
      // a new value replaces the legacy value_bool form
      if (p.value !== undefined || 'value_bool' in p) delete next.value_bool
      return next
    })
  const id = `c${i}`
  const errs = props.errors
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
            upd(cur => (fieldType(f, catalog) === 'boolean' ? { field: f, op: '==', value: true } : { field: f, value: kindOf(cur) === 'bool' ? 0 : cur.value }))
          }}
        >
          {!Object.hasOwn(BASE_FIELDS, row.field) && !Object.hasOwn(MARKET_FIELDS, row.field) && !catalog.some(c => c.fields.includes(row.field)) && <option value={row.field}>{row.field}</option>}
          <FieldOptions catalog={catalog} />
        </select>
      </div>
      <div class="field">
        <label for={`${id}-timeframe`}>{t('builder.timeframe')}</label>
        <select
          id={`${id}-timeframe`}
          value={row.timeframe ?? ''}
          onChange={e => {
            const tf = (e.target as HTMLSelectElement).value as NonNullable<Leaf['timeframe']> | ''
            editRow(cur => {
              const next = { ...cur }
              if (tf === '') delete next.timeframe
              else next.timeframe = tf
              return next
            })
          }}
        >
          <option value="">{t('builder.runTimeframe')}</option>
          {FIELD_TIMEFRAMES.map(x => (
            <option value={x}>{x}</option>
          ))}
        </select>
        <label for={`${id}-symbol`}>{t('builder.symbol')}</label>
        <TypedTextInput
          id={`${id}-symbol`}
          inputMode="text"
          placeholder={t('builder.thisCoin')}
          value={row.symbol}
          format={s => s ?? ''}
          parse={symbolOf}
          same={(text, s) => text === (s ?? '')}
          // the row follows every keystroke: a render between typing and leaving the box
          // (a run's answer arriving) would otherwise put the row's old symbol back
          onValue={sym =>
            editRow(cur => {
              const next = { ...cur }
              if (sym === undefined) delete next.symbol
              else next.symbol = sym
              return next
            })
          }
        />
      </div>
      <div class="field">
        <label for={`${id}-stat`}>{t('builder.stat')}</label>
        <select
          id={`${id}-stat`}
          value={row.stat ?? ''}
          onChange={e => {
            const stat = (e.target as HTMLSelectElement).value as Stat | ''
            editRow(cur => {
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
              editRow(cur => {
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
        <ConditionValue id={`${id}-value`} row={row} kind={kind} catalog={catalog} onPatch={upd} />
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
            editRow(cur => {
              const next = { ...cur } as Leaf
              if (v > 0 || !Number.isFinite(v)) next.shift = v
              else delete next.shift
              return next
            })
          }}
        />
      </div>
      <button type="button" class="remove" aria-label={t('builder.remove', { n: i + 1 })} disabled={!props.removable} onClick={props.onRemove}>
        ✕
      </button>
      {errs.length > 0 && (
        <small class="error-text row-error" id={`${id}-err`} role="alert">
          {errs.map(e => `⚠ ${e}`).join(' ')}
        </small>
      )}
    </li>
  )
}

/** a symbol as typed: trimmed and upper-cased; an empty box is the run's own coin */
function symbolOf(text: string): string | undefined {
  const sym = text.trim().toUpperCase()
  return sym === '' ? undefined : sym
}
