import { Elysia } from 'elysia'
import { Detail } from '../../model/shared'
import type { AppDeps } from '../../deps'
import { noCache } from '../../http/cache-control'
import { generateBot, loadBotRuntime } from './generate'
import { DcaSimRequest, DcaSimResponse, GenerateBotRequest, GridSimRequest, GridSimResponse } from './model'
import { simulateDcaRequest, simulateGridRequest } from './service'

/**
 * POST /simulate/dca and /simulate/grid: bot backtests on one coin, public simulation
 * endpoints (the contract's table), so they are in /openapi.json; POST /generate-bot: a
 * trading-bot zip, the bot execution side, which the contract keeps out of the description.
 */
export function botsModule(deps: AppDeps) {
  return new Elysia({ name: 'bots' })
    .post('/simulate/dca', ({ body }) => simulateDcaRequest(deps.store, deps.runs, body), {
      body: DcaSimRequest,
      response: { 200: DcaSimResponse, 404: Detail },
      detail: { tags: ['bots'], summary: 'DCA bot backtest: safety-order ladder and take profit on one coin' },
    })
    .post('/simulate/grid', ({ body }) => simulateGridRequest(deps.store, deps.runs, body), {
      body: GridSimRequest,
      response: { 200: GridSimResponse, 404: Detail },
      detail: { tags: ['bots'], summary: 'Grid bot backtest on one coin (accuracy: approx)' },
    })
    .post(
      '/generate-bot',
      async ({ body, headers }) => {
        const bot = await generateBot({ store: deps.store, runs: deps.runs, clock: deps.clock, runtime: loadBotRuntime }, body, noCache(headers))
        return new Response(bot.zip, { headers: { 'content-type': 'application/zip', 'content-disposition': `attachment; filename="${bot.fileName}"` } })
      },
      { body: GenerateBotRequest, detail: { hide: true, tags: ['bots'], summary: 'Download a trading-bot zip' } },
    )
}
