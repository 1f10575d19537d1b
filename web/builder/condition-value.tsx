import type { BuilderIndicator } from '../api'
import { FieldOptions } from './field-options'
import { ListText } from './list-text'
import { NumberText } from './number-text'
import type { Kind, Leaf, LeafPatch } from './tree'

/** A row's value, edited as its kind asks: a number, a list of numbers, true/false, or another field. */
export function ConditionValue(props: { id: string; row: Leaf; kind: Kind; catalog: readonly BuilderIndicator[]; onPatch: (patch: LeafPatch) => void }) {
  const { id, row, kind } = props
  const upd = props.onPatch
  return (
    <>
      {kind === 'number' && (
        <NumberText id={id} value={row.value as number | string | undefined} onValue={v => upd({ value: (v ?? '') as number })} />
      )}
      {kind === 'list' && <ListText id={id} value={row.value as (number | string)[]} onValue={v => upd({ value: v as number[] })} />}
      {kind === 'bool' && (
        <select id={id} value={String(row.value_bool ?? row.value)} onChange={e => upd({ value: (e.target as HTMLSelectElement).value === 'true' })}>
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      )}
      {kind === 'field' && (
        <select
          id={id}
          value={(row.value as { field: string }).field}
          onChange={e => {
            const field = (e.target as HTMLSelectElement).value
            upd(cur => ({ value: { ...(cur.value as { field: string; shift?: number }), field } }))
          }}
        >
          <FieldOptions catalog={props.catalog} />
        </select>
      )}
    </>
  )
}
