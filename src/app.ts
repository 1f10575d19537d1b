/**
 * buildApp(deps): the HTTP service composed from its feature modules. Tests build it
 * in-process and call `app.handle(new Request('http://localhost/...'))`.
 */
import { cors } from '@elysiajs/cors'
import { Elysia } from 'elysia'
import type { AppDeps } from './deps'
import { bodyLimit } from './http/body-limit'
import { errorHandler } from './http/errors'
import { fieldRules } from './http/field-rules'
import { jsonBody, requiredFields } from './http/json-body'
import { openapiPlugin, type RouteBody } from './http/openapi'
import { rateLimit } from './http/rate-limit'
import { eventLoopLag, loadShedding } from './http/load-shedding'
import { createHttpMetrics, metricsRoute } from './http/metrics'
import { requestContext } from './http/request-context'
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from './http/cors-headers'
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
import { botsModule } from './modules/bots'
import { webModule } from './modules/web'
import { rankingsModule } from './modules/rankings'
import { signalsModule } from './modules/signals'
import { trustModule } from './modules/trust'
import { paperModule } from './modules/paper'
import { cardsModule } from './modules/cards'
import { subscribeModule } from './modules/subscribe'
import { mailerFor } from './mail/mailer'
import { createLogger } from './log'

export function buildApp(deps: AppDeps) {
  const mailer = (deps.mailer ??= mailerFor(deps.config, deps.db, deps.clock, createLogger(deps.config.logLevel)))
  // encodeSchema off: Elysia's t.Integer is a transform (it coerces strings in requests),
  // and with encoding on every response holding one is walked by TypeBox's Encode, about
  // 15 ms for a /simulate body; no response schema here transforms anything
  const metrics = createHttpMetrics(deps)
  // every route of the finished app, read by hooks at request time (the same instance: use() adds to it)
  const app = new Elysia({ encodeSchema: false })
  const routeTable = (): readonly RouteBody[] => app.routes
  return app
    .use(errorHandler)
    .use(requestContext(deps.log, metrics))
    .use(cors({ origin: '*', credentials: false, allowedHeaders: CORS_ALLOWED_HEADERS, exposeHeaders: CORS_EXPOSED_HEADERS }))
    .use(bodyLimit(deps.config.bodyLimitBytes, deps.config.headerLimitBytes))
    .use(jsonBody(deps.config.bodyLimitBytes, () => routeTable()))
    .use(fieldRules)
    .use(
      rateLimit(
        {
          computePerMin: deps.config.rateLimitPerMin,
          subscribePerMin: deps.config.rateLimitSubscribePerMin,
          otherPerMin: deps.config.rateLimitOtherPerMin,
          trustProxy: deps.config.trustProxy,
          maxClients: deps.config.rateLimitClients,
        },
        deps.clock,
      ),
    )
    .use(loadShedding(deps.config.shedLagMs, deps.eventLoopLag ?? eventLoopLag()))
    .use(requiredFields(() => routeTable()))
    .use(openapiPlugin(() => routeTable()))
    .use(metricsRoute(metrics))
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
    .use(botsModule(deps))
    .use(webModule())
    .use(rankingsModule(deps))
    .use(signalsModule(deps))
    .use(trustModule(deps))
    .use(paperModule(deps))
    .use(cardsModule(deps))
    .use(subscribeModule(deps, mailer))
}

export type App = ReturnType<typeof buildApp>
