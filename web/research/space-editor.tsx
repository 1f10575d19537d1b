/**
 * The space of a sweep or walk-forward run: one row per parameter, its path (with the paths
 * the current strategy offers as suggestions) and its values, typed as a list ("3,5,8") or a
 * range ("2:10:2", min:max:step). Rows are kept in the settings as typed; the server's 422
 * names a path or a range it refuses.
 */
import type { FieldProblem } from '../api'
import type { Meta } from '../meta'
import { spaceRows, type Settings, type SetSettings, type SpaceRow } from '../settings'
import { useI18n } from '../ui'

/** the paths a strategy's numbers sit at: the exits, the timeframe, every indicator parameter and every numeric leaf value */
export function pathSuggestions(s: Settings, meta: Meta): string[] {
  const out = ['sl_pct', 'tp_pct', 'max_bars', 'timeframe']
  const st = s.mode === 'builder' ? null : meta.strategies.find(x => x.id === s.strategy)
  const indicators = s.mode === 'builder' ? (s.builder?.indicators ?? {}) : (st?.indicators ?? {})
  for (const id of Object.keys(indicators)) {
    const def = meta.indicators.find(x => x.id === id)
    for (const p of Object.keys(def?.param_info ?? indicators[id] ?? {})) out.push(`indicators.${id}.${p}`)
  }
  const walk = (node: unknown, path: string) => {
    if (!node || typeof node !== 'object') return
    const o = node as Record<string, unknown>
    if (typeof o.value === 'number') out.push(`${path}.value`)
    if (o.value && typeof o.value === 'object' && !Array.isArray(o.value) && typeof (o.value as Record<string, unknown>).mult === 'number') out.push(`${path}.value.mult`)
    if (Array.isArray(o.conditions)) o.conditions.forEach((c, i) => walk(c, `${path}.conditions[${i}]`))
    if (o.condition) walk(o.condition, `${path}.condition`)
  }
  walk(s.mode === 'builder' ? s.builder?.entry : st?.entry, 'entry')
  if (s.mode !== 'builder') walk(st?.exit_conditions, 'exit_conditions')
  return [...new Set(out)]
}

export function SpaceEditor(props: { s: Settings; set: SetSettings; meta: Meta; problems: FieldProblem[] }) {
  const { t } = useI18n()
  const rows = spaceRows(props.s.space)
  // a problem naming a row (['body', 'space', i, …]) goes under that row; one about the whole space below them
  const rowOf = (p: FieldProblem) => (typeof p.loc?.[2] === 'number' ? p.loc[2] : -1)
  const whole = props.problems.filter(p => rowOf(p) < 0 || rowOf(p) >= rows.length)
  const save = (next: SpaceRow[]) => props.set({ space: JSON.stringify(next) })
  const edit = (i: number, patch: Partial<SpaceRow>) => save(rows.map((r, k) => (k === i ? { ...r, ...patch } : r)))
  const suggestions = pathSuggestions(props.s, props.meta)
  return (
    <fieldset class="space" id="space" aria-describedby={whole.length ? 'space-err' : 'space-hint'}>
      <legend>{t('sw.space')}</legend>
      <p class="hint" id="space-hint">
        {t('sw.spaceHint')}
      </p>
      <datalist id="space-paths">
        {suggestions.map(p => (
          <option value={p} />
        ))}
      </datalist>
      <ol class="space-rows">
        {rows.map((r, i) => {
          const errs = props.problems.filter(p => rowOf(p) === i)
          return (
            <li data-dim={i} class={errs.length ? 'field-error' : ''}>
              <label for={`sp-${i}-path`}>{t('sw.path')}</label>
              <input id={`sp-${i}-path`} type="text" list="space-paths" aria-invalid={errs.length ? true : undefined} aria-describedby={errs.length ? `sp-${i}-err` : undefined} value={r.path} onInput={e => edit(i, { path: (e.target as HTMLInputElement).value })} />
              <label for={`sp-${i}-values`}>{t('sw.values')}</label>
              <input id={`sp-${i}-values`} type="text" inputMode="text" placeholder="3,5,8 · 2:10:2" value={r.values} onInput={e => edit(i, { values: (e.target as HTMLInputElement).value })} />
              <button type="button" class="remove" aria-label={t('sw.removeDim', { n: i + 1 })} onClick={() => save(rows.filter((_, k) => k !== i))}>
                ✕
              </button>
              {errs.length > 0 && (
                <small class="error-text row-error" id={`sp-${i}-err`} role="alert">
                  {errs.map(p => `⚠ ${p.loc?.slice(3).join('.') || t('sw.path')}: ${p.msg}`).join(' ')}
                </small>
              )}
            </li>
          )
        })}
      </ol>
      <button type="button" class="secondary" id="space-add" disabled={rows.length >= 8} onClick={() => save([...rows, { path: suggestions.find(p => !rows.some(r => r.path === p)) ?? 'max_bars', values: '' }])}>
        {t('sw.addDim')}
      </button>
      {whole.length > 0 && (
        <small class="error-text" id="space-err" role="alert">
          {whole.map(p => `⚠ ${p.msg}`).join(' ')}
        </small>
      )}
    </fieldset>
  )
}
