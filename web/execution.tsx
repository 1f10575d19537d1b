/**
 * The "Execution" group of the run forms: how the run fills its orders. Issue 25's settings
 * live here, each a field of its own: `intrabar` (minute detail inside the bar) now, the
 * cost settings beside it. Values are sent as chosen; the server's 422 shows at the field.
 */
import { err } from './form'
import type { Settings } from './settings'
import { described, Field, useI18n } from './ui'

const INTRABAR = ['detail', 'bar', 'detail_required'] as const

export function IntrabarField(props: { s: Settings; set: (p: Partial<Settings>) => void; error: unknown }) {
  const { t } = useI18n()
  const e = err(props.error, 'intrabar')
  const hint = t('intrabar.hint')
  return (
    <Field id="f-intrabar" label={t('intrabar')} error={e} hint={hint}>
      <select {...described('f-intrabar', e, hint)} value={props.s.intrabar} onChange={ev => props.set({ intrabar: (ev.target as HTMLSelectElement).value })}>
        {!(INTRABAR as readonly string[]).includes(props.s.intrabar) && <option value={props.s.intrabar}>{props.s.intrabar}</option>}
        {INTRABAR.map(v => (
          <option value={v}>{t(`intrabar.${v}`)}</option>
        ))}
      </select>
    </Field>
  )
}

/** The group every run view shows under its cost fields. */
export function ExecutionFields(props: { s: Settings; set: (p: Partial<Settings>) => void; error: unknown }) {
  const { t } = useI18n()
  return (
    <fieldset class="exec-group">
      <legend>{t('exec.group')}</legend>
      <div class="row-fields">
        <IntrabarField {...props} />
      </div>
    </fieldset>
  )
}
