import { useI18n } from '../ui'

/** data window, coins used and the research paths' coin limit when it bound */
export function RunScope(props: { r: { data_range: string; coins_used: number; run_cap: number | null } }) {
  const { t } = useI18n()
  return (
    <p class="hint">
      {t('res.range')}: {props.r.data_range} · {t('res.coins')}: {props.r.coins_used}
      {props.r.run_cap !== null && <> · ⚠ {t('res.runCap', { n: props.r.run_cap })}</>}
    </p>
  )
}
