/**
 * The builder: condition rows (field, operator, value) joined by AND or OR, the settings
 * of the indicators they use, or, for a tree with nested groups, its JSON. Fields and
 * params come from GET /builder/indicators; presets from GET /builder/presets.
 */
import type { BuilderIndicator, PresetItem } from '../api'
import type { BuilderSpec, ConditionNode } from '../settings'
import { useI18n } from '../ui'
import { ConditionRows } from './condition-rows'
import { IndicatorParams } from './indicator-params'
import { SpecFields } from './spec-fields'
import { flatRows, indicatorsFor, type Leaf } from './tree'
import { useTreeGeneration } from './tree-generation'
import { TreeJson } from './tree-json'

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
  // the boxes below are keyed by it: a tree from a preset or the address gets boxes of its own
  const { generation, own } = useTreeGeneration(spec.entry)
  const update = props.onUpdate
  // a new tree brings the indicators its fields need (params already set are kept)
  const withEntry = (x: BuilderSpec, entry: ConditionNode): BuilderSpec => ({ ...x, entry: own(entry), indicators: indicatorsFor(entry, catalog, x.indicators) })
  const setEntry = (entry: ConditionNode) => update(x => withEntry(x, entry))
  const editRows = (fn: (rows: Leaf[], logic: 'AND' | 'OR') => { logic: 'AND' | 'OR'; rows: Leaf[] }) =>
    update(x => {
      const f = flatRows(x.entry)
      if (!f) return x
      const r = fn(f.rows, f.logic)
      return withEntry(x, { type: r.logic, conditions: r.rows })
    })
  return (
    <fieldset class="builder" id="builder">
      <legend>{t('builder.title')}</legend>
      <SpecFields spec={spec} onUpdate={update} presets={props.presets} preset={props.preset} onPreset={props.onPreset} />
      {flat ? (
        <ConditionRows key={generation} flat={flat} catalog={catalog} rowErrors={props.rowErrors} onEditRows={editRows} />
      ) : (
        <TreeJson key={generation} entry={spec.entry} onEntry={setEntry} />
      )}
      {props.treeErrors.length > 0 && (
        <div class="error-box" role="alert">
          {props.treeErrors.map(e => (
            <p>⚠ {e}</p>
          ))}
        </div>
      )}
      <IndicatorParams key={generation} spec={spec} catalog={catalog} onUpdate={update} />
    </fieldset>
  )
}
