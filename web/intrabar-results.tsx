/**
 * The results' "Inside the bar" block: how the run found the exits inside bars (the
 * answer's `intrabar`, docs/api.md) and the bar rule's figures beside the minute detail's,
 * so a reader sees how much the usual "stop first" guess flatters or hurts the strategy.
 */
import type { RunResult } from './api'
import { DataTable, Metric, useI18n } from './ui'

type Intrabar = NonNullable<RunResult['intrabar']>
type Figures = NonNullable<Intrabar['rule_bias']>['bar']

export function IntrabarPanel(props: { r: RunResult }) {
  const { t, n } = useI18n()
  const ib = props.r.intrabar
  if (!ib) return null
  const rows: { key: 'ib.ret' | 'ib.win' | 'ib.pf'; f: keyof Figures }[] = [
    { key: 'ib.ret', f: 'total_return_pct' },
    { key: 'ib.win', f: 'win_rate' },
    { key: 'ib.pf', f: 'profit_factor' },
  ]
  const bias = ib.rule_bias
  return (
    <section class="intrabar" id="intrabar" aria-labelledby="ib-h">
      <h3 id="ib-h">{t('ib.title')}</h3>
      <dl class="metrics">
        <Metric label={t('ib.mode')} id="ib-mode">
          {t(ib.mode === 'bar' ? 'ib.mode.bar' : 'ib.mode.detail')}
        </Metric>
        <Metric label={t('ib.replayed')} id="ib-replayed">
          {ib.bars_replayed.toLocaleString()}
        </Metric>
        <Metric label={t('ib.left')} id="ib-left">
          {ib.bars_left_to_rule.toLocaleString()}
        </Metric>
        <Metric label={t('ib.changed')} id="ib-changed">
          {ib.trades_changed.toLocaleString()}
        </Metric>
        <Metric label={t('ib.without')}>{ib.coins_without_detail.toLocaleString()}</Metric>
      </dl>
      {bias ? (
        <DataTable
          id="ib-bias"
          caption={t('ib.bias')}
          rows={rows}
          columns={[
            { key: 'figure', label: t('ib.bias.figure'), value: row => t(row.key), render: row => t(row.key) },
            { key: 'bar', label: t('ib.bias.bar'), value: row => bias.bar[row.f], render: row => n(bias.bar[row.f]), numeric: true },
            { key: 'detail', label: t('ib.bias.detail'), value: row => bias.detail[row.f], render: row => n(bias.detail[row.f]), numeric: true },
          ]}
        />
      ) : (
        <p class="hint">{t('ib.bias.none')}</p>
      )}
    </section>
  )
}
