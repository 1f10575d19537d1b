import type { BuilderIndicator } from '../api'
import type { BuilderSpec } from '../settings'
import { useI18n } from '../ui'
import { NumberText } from './number-text'

/**
 * The params of the indicators the rows use (blank = the indicator's default, shown as the
 * placeholder). Each box is keyed by its indicator and param: a box keeps its text as typed
 * while it has the focus, so one reused by position for another param would show that text
 * under the other's name.
 */
export function IndicatorParams(props: { spec: BuilderSpec; catalog: readonly BuilderIndicator[]; onUpdate: (fn: (s: BuilderSpec) => BuilderSpec) => void }) {
  const { t } = useI18n()
  const used = props.catalog.filter(c => c.id in props.spec.indicators && Object.keys(c.param_info).length > 0)
  if (used.length === 0) return null
  return (
    <details class="params" open>
      <summary>{t('builder.params')}</summary>
      {used.map(ind => (
        <fieldset class="row-fields" key={ind.id}>
          <legend>{ind.name}</legend>
          {Object.entries(ind.param_info).map(([p, info]) => {
            const id = `p-${ind.id}-${p}`
            const cur = props.spec.indicators[ind.id]?.[p]
            return (
              <div class="field field-narrow" key={p}>
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
