/**
 * buildApp(deps): the HTTP service composed from its feature modules. Tests build it
 * in-process and call `app.handle(new Request('http://localhost/...'))`.
 */
import { cors } from '@elysiajs/cors'
import { Elysia } from 'elysia'
import type { AppDeps } from './deps'
import { bodyLimit } from './http/body-limit'
import { errorHandler } from './http/errors'
import { openapiPlugin } from './http/openapi'
import { rateLimit } from './http/rate-limit'
import { backtestModule } from './modules/backtest'
import { coinsModule } from './modules/coins'
import { exportModule } from './modules/export'
import { simulateModule } from './modules/simulate'
import { researchModule } from './modules/research'
import { builderModule } from './modules/builder'
import { strategiesModule } from './modules/strategies'
import { healthModule } from './modules/health'
import { coinStatsModule } from './modules/coin-stats'
import { macroModule } from './modules/macro'
import { marketModule } from './modules/market'
import { newsModule } from './modules/news'
import { regimeModule } from './modules/regime'
import { ohlcvModule } from './modules/ohlcv'
import { webModule } from './modules/web'
import { rankingsModule } from './modules/rankings'

export function buildApp(deps: AppDeps) {
  // encodeSchema off: Elysia's t.Integer is a transform (it coerces strings in requests),
  // and with encoding on every response holding one is walked by TypeBox's Encode, about
  // 15 ms for a /simulate body; no response schema here transforms anything
  return new Elysia({ encodeSchema: false })
    .use(errorHandler)
    .use(cors({ origin: '*', credentials: false }))
    .use(bodyLimit(deps.config.bodyLimitBytes))
    .use(rateLimit(deps.config.rateLimitPerMin, deps.clock))
    .use(openapiPlugin())
    .use(healthModule(deps))
    .use(coinsModule(deps))
    .use(coinStatsModule(deps))
    .use(marketModule(deps))
    .use(newsModule(deps))
    .use(macroModule(deps))
    .use(regimeModule(deps))
    .use(ohlcvModule(deps))
    .use(strategiesModule())
    .use(builderModule())
    .use(backtestModule(deps))
    .use(simulateModule(deps))
    .use(researchModule(deps))
    .use(exportModule(deps))
    .use(webModule())
    .use(rankingsModule(deps))
}

export type App = ReturnType<typeof buildApp>
