import type { BuilderIndicator } from '../api'
import { useI18n } from '../ui'
import { ConditionRow } from './condition-row'
import type { Leaf } from './tree'

type Rows = { logic: 'AND' | 'OR'; rows: Leaf[] }

/** A flat entry tree as rows: how they are joined (AND / OR), the rows, and a button that adds one. */
export function ConditionRows(props: {
  flat: Rows
  catalog: readonly BuilderIndicator[]
  /** problems of `POST /backtest` by row */
  rowErrors: Map<number, string[]>
  /** changes are functions of the latest rows, so two edits before a render never lose one */
  onEditRows: (fn: (rows: Leaf[], logic: 'AND' | 'OR') => Rows) => void
}) {
  const { t } = useI18n()
  const { flat } = props
  const editRows = props.onEditRows
  const editRow = (i: number, fn: (row: Leaf) => Leaf) => editRows((rows, logic) => ({ logic, rows: rows.map((r, j) => (j === i ? fn(r) : r)) }))
  return (
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
        {flat.rows.map((row, i) => (
          <ConditionRow
            row={row}
            index={i}
            errors={props.rowErrors.get(i) ?? []}
            catalog={props.catalog}
            onEdit={fn => editRow(i, fn)}
            removable={flat.rows.length !== 1}
            onRemove={() => editRows((rows, logic) => ({ logic, rows: rows.filter((_, j) => j !== i) }))}
          />
        ))}
      </ol>
      <button type="button" class="secondary" id="add-row" onClick={() => editRows((rows, logic) => ({ logic, rows: [...rows, { field: 'close', op: '>', value: { field: 'ema_fast' } } as Leaf] }))}>
        + {t('builder.add')}
      </button>
    </>
  )
}
