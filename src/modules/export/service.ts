/** GET /export/csv: every trade of a stored result, one CSV row each. */
import { UnknownResult } from '../../runs/errors'
import { tradeItemsFrom } from '../../runs/present'
import type { RunService } from '../../runs/service'

const CSV_COLUMNS = ['symbol', 'direction', 'entry_time', 'exit_time', 'entry_price', 'exit_price', 'bars_held', 'exit_reason', 'pnl_pct', 'pnl_usd', 'fee_pct', 'funding_pct', 'sl_tp_same_bar', 'slippage_pct'] as const

export async function exportCsv(runs: RunService, hash: string): Promise<string> {
  const r = await runs.byHash(hash)
  if (!r) throw new UnknownResult(hash)
  const lines = [CSV_COLUMNS.join(',')]
  for (const item of tradeItemsFrom(r.assembled.portfolio)) lines.push(CSV_COLUMNS.map(c => String(item[c])).join(','))
  return lines.join('\n') + '\n'
}
