import { Elysia } from 'elysia'
import type { MarketContext } from '../../market-context/service'
import { labelHeaders } from '../../http/label-headers'
import { MacroResponse } from './model'

/** GET /macro: DXY, US 10y, S&P 500, open interest, funding rates, upcoming events. */
export function macroModule(deps: { marketContext: MarketContext }) {
  return new Elysia({ name: 'macro' }).get(
    '/macro',
    async ({ set }) => {
      const body = await deps.marketContext.macro()
      labelHeaders(set, body)
      return body
    },
    { response: MacroResponse, detail: { tags: ['market'], summary: 'Macro indicators, derivatives data, upcoming events' } },
  )
}
