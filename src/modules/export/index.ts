import { Elysia, t } from 'elysia'
import type { AppDeps } from '../../deps'
import { exportCsv } from './service'

/** GET /export/csv?hash=: every trade of a /backtest or /simulate result as CSV. */
export function exportModule(deps: AppDeps) {
  return new Elysia({ name: 'export' }).get(
    '/export/csv',
    async ({ query, set }) => {
      const csv = await exportCsv(deps.runs, query.hash)
      set.headers['content-type'] = 'text/csv; charset=utf-8'
      set.headers['content-disposition'] = `attachment; filename="perpsim-${query.hash.slice(0, 12)}.csv"`
      return csv
    },
    {
      query: t.Object({ hash: t.String({ pattern: '^[0-9a-f]{64}$', description: 'result_hash of a /backtest or /simulate response' }) }),
      detail: { tags: ['simulation'], summary: 'Trades of a result as CSV (one row per trade, with a header)' },
    },
  )
}
