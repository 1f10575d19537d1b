/**
 * buildApp(deps): the HTTP service composed from its feature modules. Tests build it
 * in-process and call `app.handle(new Request('http://localhost/...'))`.
 */
import { cors } from '@elysiajs/cors'
import { Elysia, type AnyElysia } from 'elysia'
import type { AppDeps } from './deps'
import { bodyLimit } from './http/body-limit'
import { errorHandler } from './http/errors'
import { fieldRules } from './http/field-rules'
import { jsonBody, requiredFields } from './http/json-body'
import { openapiPlugin, type RouteBody } from './http/openapi'
import { queryBooleans } from './http/query-booleans'
import { rateLimit } from './http/rate-limit'
import { eventLoopLag, loadShedding } from './http/load-shedding'
import { createHttpMetrics, metricsRoute } from './http/metrics'
import { requestContext } from './http/request-context'
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_METHODS, corsWithoutVary } from './http/cors-headers'
import { backtestModule } from './modules/backtest'
import { coinsModule } from './modules/coins'
import { exportModule } from './modules/export'
import { simulateModule } from './modules/simulate'
import { researchModule } from './modules/research'
import { sweepsModule } from './modules/sweeps'
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
import { eventsModule } from './modules/events'
import { cardsModule } from './modules/cards'
import { subscribeModule } from './modules/subscribe'
import { mailerFor } from './mail/mailer'
import { pusherFor } from './push/pusher'
import { webhooksModule } from './modules/webhooks'
import { createLogger } from './log'

export function buildApp(deps: AppDeps) {
  const mailer = (deps.mailer ??= mailerFor(deps.config, deps.db, deps.clock, createLogger(deps.config.logLevel)))
  const pusher = (deps.pusher ??= pusherFor(deps.config, deps.db, deps.clock, deps.log ?? createLogger(deps.config.logLevel)))
  // encodeSchema off: Elysia's t.Integer is a transform (it coerces strings in requests),
  // and with encoding on every response holding one is walked by TypeBox's Encode, about
  // 15 ms for a /simulate body; no response schema here transforms anything
  const metrics = createHttpMetrics(deps)
  // every route of the finished app, read by hooks at request time (the same instance: use() adds to it)
  const app = new Elysia({ encodeSchema: false })
  const routeTable = (): readonly RouteBody[] => app.routes
  const withPlugins = app
    .use(errorHandler)
    .use(requestContext(deps.log, metrics))
    .use(cors({ origin: '*', credentials: false, allowedHeaders: CORS_ALLOWED_HEADERS, exposeHeaders: CORS_EXPOSED_HEADERS, methods: CORS_METHODS, preflight: false }))
    // no `Vary: *` (an answer varies only where its route says so), and the preflights
    .onRequest(corsWithoutVary)
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
        deps.config.redis.url ? { url: deps.config.redis.url, prefix: deps.config.redis.prefix } : null,
      ),
    )
    .use(loadShedding(deps.config.shedLagMs, deps.eventLoopLag ?? eventLoopLag()))
    .use(requiredFields(() => routeTable()))
    .use(queryBooleans(() => routeTable()))
    .use(openapiPlugin(() => routeTable()))
    .use(metricsRoute(metrics))
  // the areas are added one by one: chained in one expression their route types nest too
  // deep for the type checker, and no caller reads the app's route types
  for (const area of areaModules(deps, mailer, pusher)) withPlugins.use(area)
  return withPlugins
}

/** The contract's areas, in the order their routes are matched. */
function areaModules(deps: AppDeps, mailer: NonNullable<AppDeps['mailer']>, pusher: NonNullable<AppDeps['pusher']>): AnyElysia[] {
  return [
    healthModule(deps),
    coinsModule(deps),
    coinStatsModule(deps),
    marketModule(deps),
    newsModule(deps),
    macroModule(deps),
    regimeModule(deps),
    ohlcvModule(deps),
    strategiesModule(),
    builderModule(),
    backtestModule(deps),
    simulateModule(deps),
    researchModule(deps),
    sweepsModule(deps),
    exportModule(deps),
    botsModule(deps),
    webModule(),
    rankingsModule(deps),
    signalsModule(deps),
    trustModule(deps),
    paperModule(deps),
    eventsModule(deps),
    cardsModule(deps),
    subscribeModule(deps, mailer),
    webhooksModule(deps, pusher),
  ]
}

export type App = ReturnType<typeof buildApp>
