import type { PresetItem } from '../api'
import type { BuilderSpec } from '../settings'
import { useI18n } from '../ui'

/** The built strategy's preset (GET /builder/presets), name and direction. */
export function SpecFields(props: {
  spec: BuilderSpec
  onUpdate: (fn: (s: BuilderSpec) => BuilderSpec) => void
  presets: readonly PresetItem[]
  preset: string
  onPreset: (id: string) => void
}) {
  const { t } = useI18n()
  const { spec } = props
  const update = props.onUpdate
  return (
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
  )
}
