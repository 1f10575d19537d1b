import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { HttpError, unprocessable } from '../../http/errors'
import { generateBot, loadBotRuntime } from './generate'
import { DcaSimRequest, DcaSimResponse, GenerateBotRequest, GridSimRequest, GridSimResponse } from './model'
import { InvalidBotRequest, simulateDcaRequest, simulateGridRequest, UnknownBotSymbol } from './service'

/** The bot service's domain errors as HTTP answers. */
function httpError(e: unknown): unknown {
  if (e instanceof InvalidBotRequest) return unprocessable(e.problems.map(p => ({ type: 'value_error', loc: p.loc, msg: p.msg, input: p.input })))
  if (e instanceof UnknownBotSymbol) return new HttpError(404, { detail: e.message })
  return e
}

function answer<T>(f: () => T): T {
  try {
    return f()
  } catch (e) {
    throw httpError(e)
  }
}

async function answerAsync<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f()
  } catch (e) {
    throw httpError(e)
  }
}

/**
 * POST /simulate/dca and /simulate/grid: bot backtests on one coin; POST /generate-bot: a
 * trading-bot zip. Outside the public OpenAPI description (the contract's bot API).
 */
export function botsModule(deps: AppDeps) {
  return new Elysia({ name: 'bots' })
    .post('/simulate/dca', ({ body }) => answer(() => simulateDcaRequest(deps.store, body)), {
      body: DcaSimRequest,
      response: DcaSimResponse,
      detail: { hide: true, tags: ['bots'], summary: 'DCA bot backtest' },
    })
    .post('/simulate/grid', ({ body }) => answer(() => simulateGridRequest(deps.store, body)), {
      body: GridSimRequest,
      response: GridSimResponse,
      detail: { hide: true, tags: ['bots'], summary: 'Grid bot backtest' },
    })
    .post(
      '/generate-bot',
      async ({ body, headers }) => {
        const noCache = /no-cache|no-store/i.test(headers['cache-control'] ?? '')
        const bot = await answerAsync(() => generateBot({ store: deps.store, simulation: deps.simulation, clock: deps.clock, runtime: loadBotRuntime }, body, noCache))
        return new Response(bot.zip, { headers: { 'content-type': 'application/zip', 'content-disposition': `attachment; filename="${bot.fileName}"` } })
      },
      { body: GenerateBotRequest, detail: { hide: true, tags: ['bots'], summary: 'Download a trading-bot zip' } },
    )
}
