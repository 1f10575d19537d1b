/**
 * Every setting of the service, read from the environment once at start-up.
 * A bad value stops start-up with one line naming the variable and what it accepts
 * (ConfigError). README.md lists the same variables; keep the two in step.
 */
import { cpus } from 'node:os'
import { join, resolve } from 'node:path'
import { DAY_MS, HOUR_MS } from './time'

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent'

export interface Config {
  port: number
  host: string
  dataDir: string
  adminKey: string
  logLevel: LogLevel
  /** true: no outbound network calls at all */
  offline: boolean
  /** null: decided by the store (on for a synthetic store, off otherwise) */
  demo: boolean | null
  /** hourly exchange sync of a real store; null: decided by the store (on when it was synced with `data sync`) */
  sync: boolean | null
  /** false: the scheduled jobs (rankings, …) are not registered (benchmarks of requests alone) */
  jobs: boolean
  workers: number
  /** simulations waiting for a worker before new ones are shed with 503 */
  queueMax: number
  /** largest accepted request body in bytes (413 beyond it) */
  bodyLimitBytes: number
  /** largest accepted request headers in all, in bytes (431 beyond it) */
  headerLimitBytes: number
  /** finished results kept in memory (the result cache) */
  resultCacheSize: number
  /** requests per minute per client IP on compute endpoints; 0 disables */
  rateLimitPerMin: number
  /** requests per minute per client on /api/subscribe; 0 disables */
  rateLimitSubscribePerMin: number
  /** requests per minute per client on every other route but /health and /metrics; 0 disables */
  rateLimitOtherPerMin: number
  /** clients whose rate windows are remembered at once (least recently seen forgotten first) */
  rateLimitClients: number
  /** trusted reverse-proxy hops: 0 = the socket address is the client; n = n-th X-Forwarded-For entry from the right */
  trustProxy: number
  /** event-loop lag (ms) past which compute requests are shed with 503; 0 disables */
  shedLagMs: number
  /** published rows of result_requests kept (oldest deleted beyond it) */
  resultIndexMax: number
  /** upstream base URLs and timeouts (market context) */
  upstream: UpstreamConfig
  /** the service's public origin (links in mails, og:url); null: the request's own origin, or http://localhost:PORT in mails */
  publicUrl: string | null
  /** outgoing mail (docs/mail.md) */
  mail: MailConfig
  /** webhooks, Telegram and Discord (docs/events.md "Webhooks") */
  push: PushConfig
  /** the push feed's streams (GET /events, docs/events.md) */
  events: EventsConfig
  /** past one machine: the task queue and the shared rate limits on Redis (docs/operations.md "A fleet") */
  redis: RedisConfig
}

export interface RedisConfig {
  /** REDIS_URL (redis:// or rediss://); null: the in-process worker pool and rate limiter */
  url: string | null
  /** REDIS_PREFIX: the key prefix of the queue, the fleet registry and the rate limits (one per fleet) */
  prefix: string
  /** QUEUE_TASK_DEADLINE_MS: a queued task not finished by then fails its run with 503 */
  taskDeadlineMs: number
  /** QUEUE_LOCK_MS: BullMQ's lockDuration on the workers (a killed worker's task is stalled after it) */
  lockMs: number
  /** QUEUE_STALLED_MS: BullMQ's stalledInterval (how often stalled tasks are handed back) */
  stalledMs: number
}

export interface PushConfig {
  /** WEBHOOK_ALLOW_PRIVATE: private, loopback and link-local targets allowed (off: refused, no request forgery) */
  allowPrivate: boolean
  /** the Telegram Bot API's origin (`{base}/bot<token>/sendMessage`) */
  telegramApiUrl: string
  /** the Discord API's base: a Discord sink's URL must start with `{base}/webhooks/` */
  discordApiUrl: string
  /** one delivery attempt's time limit */
  timeoutMs: number
}

export interface EventsConfig {
  /** open streams per client (429 beyond) */
  streamsPerClient: number
  /** open streams in all (503 beyond) */
  streamsMax: number
  /**
   * the slow poll for events of other processes on the same database, and the heartbeat
   * check, ms (at most 10 s: a heartbeat then comes within 25 s, inside the server's 30 s idle timeout)
   */
  pollMs: number
  /** unread bytes a stream may queue before its client is dropped */
  bufferBytes: number
}

export interface MailConfig {
  /** smtp(s)://user:pass@host:port[?options]; null: mails are written as .eml files to DATA_DIR/outbox/ */
  smtpUrl: string | null
  /** the From address of every mail */
  from: string
}

export interface UpstreamConfig {
  binanceSpotUrl: string
  binanceFuturesUrl: string
  coingeckoUrl: string
  fearGreedUrl: string
  newsFeeds: string[]
  macroUrl: string
  timeoutMs: number
  refresh: UpstreamRefresh
}

/** How often market-context values are refreshed (ms, on the injected clock). */
export interface UpstreamRefresh {
  /** /market sources (tickers, funding, CoinGecko, fear & greed): background refresh */
  marketMs: number
  /** a /market value at least this old makes a request wait (up to 2 s) for a fresh one */
  marketMaxAgeMs: number
  /** /market/live prices */
  liveMs: number
  /** RSS/Atom feeds */
  newsMs: number
  /** macro quotes and open interest */
  macroMs: number
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>

/** postgres:// or postgresql:// (what DATABASE_URL must be to mean Postgres) */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url)
}

/** The URL with its password masked, for logs, errors and the CLI's output. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@')
  }
}

/**
 * The records' database this installation is configured for: DATABASE_URL when it is set
 * (postgres:// only), else `sqlite:` and the file DATA_DIR/perpsim.sqlite. Any other
 * DATABASE_URL (a typo, mysql://) is a ConfigError, never a silent fall back to SQLite: a
 * fleet node that quietly kept its own file would publish beside the others. `loadConfig`
 * checks it, so `serve`, `perpsim worker` and every command refuse such a value at start;
 * `openConfiguredDb` (src/db.ts) and `db migrate` open what it names.
 */
export function configuredDatabase(config: { dataDir: string }, env: Env = process.env): string {
  const url = env.DATABASE_URL ?? ''
  if (url === '') return `sqlite:${join(config.dataDir, 'perpsim.sqlite')}`
  if (!isPostgresUrl(url))
    throw new ConfigError(`DATABASE_URL=${JSON.stringify(redactUrl(url))}: expected postgres://user@host:port/database (or postgresql://); unset, the records are the SQLite file DATA_DIR/perpsim.sqlite`)
  return url
}

function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return def
  const v = Number(raw)
  if (!Number.isInteger(v) || v < min || v > max)
    throw new ConfigError(`${name}=${JSON.stringify(raw)}: expected an integer from ${min} to ${max}`)
  return v
}

function bool(env: Env, name: string, def: boolean | null): boolean | null {
  const raw = env[name]
  if (raw === undefined || raw === '') return def
  const s = raw.toLowerCase()
  if (['1', 'true', 'yes', 'on'].includes(s)) return true
  if (['0', 'false', 'no', 'off'].includes(s)) return false
  throw new ConfigError(`${name}=${JSON.stringify(raw)}: expected 1/0 (or true/false, yes/no, on/off)`)
}

function oneOf<T extends string>(env: Env, name: string, def: T, allowed: readonly T[]): T {
  const raw = env[name]
  if (raw === undefined || raw === '') return def
  if (!(allowed as readonly string[]).includes(raw))
    throw new ConfigError(`${name}=${JSON.stringify(raw)}: expected one of ${allowed.join(', ')}`)
  return raw as T
}

function url(env: Env, name: string, def: string): string {
  const raw = env[name]
  if (raw === undefined || raw === '') return def
  try {
    const u = new URL(raw)
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error()
  } catch {
    throw new ConfigError(`${name}=${JSON.stringify(raw)}: expected an http(s) URL`)
  }
  return raw.replace(/\/+$/, '')
}

function urlList(env: Env, name: string, def: string[]): string[] {
  const raw = env[name]
  if (raw === undefined) return def
  const items = raw.split(',').map(s => s.trim()).filter(Boolean)
  return items.map((item, i) => url({ [`${name}[${i}]`]: item }, `${name}[${i}]`, ''))
}

/**
 * The address to listen on: 127.0.0.1 unless HOST says otherwise (the service has no
 * authentication; README "Exposing the service"). An IP literal or a host name.
 */
function host(env: Env): string {
  const raw = env.HOST
  if (raw === undefined || raw === '') return '127.0.0.1'
  const name = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/
  const v6 = /^[0-9A-Fa-f:.]{2,45}$/
  if (!name.test(raw) && !(raw.includes(':') && v6.test(raw)))
    throw new ConfigError(`HOST=${JSON.stringify(raw)}: expected an IP address or a host name (e.g. 127.0.0.1, or 0.0.0.0 for every interface)`)
  return raw
}

function smtpUrl(env: Env): string | null {
  const raw = env.SMTP_URL
  if (raw === undefined || raw === '') return null
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new ConfigError('SMTP_URL: expected smtp://[user:pass@]host[:port] or smtps://...')
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new ConfigError(`SMTP_URL: expected an smtp:// or smtps:// URL, got ${u.protocol}`)
  return raw
}

/** REDIS_URL: redis://[user:pass@]host[:port][/db] or rediss://…, checked here so a typo stops start-up, not the first run. */
function redisUrl(env: Env): string | null {
  const raw = env.REDIS_URL
  if (raw === undefined || raw === '') return null
  const expected = `REDIS_URL=${JSON.stringify(raw)}: expected redis://[user:password@]host[:port][/db] or rediss://… (TLS)`
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new ConfigError(expected)
  }
  if ((u.protocol !== 'redis:' && u.protocol !== 'rediss:') || u.hostname === '') throw new ConfigError(expected)
  if (u.pathname !== '' && u.pathname !== '/' && !/^\/\d{1,2}$/.test(u.pathname)) throw new ConfigError(`${expected}; the database is a number (e.g. /0)`)
  return raw
}

function redisPrefix(env: Env): string {
  const raw = env.REDIS_PREFIX
  if (raw === undefined || raw === '') return 'perpsim'
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(raw)) throw new ConfigError(`REDIS_PREFIX=${JSON.stringify(raw)}: expected 1 to 64 letters, digits, '_', '.' or '-'`)
  return raw
}

function mailFrom(env: Env): string {
  const raw = env.MAIL_FROM
  if (raw === undefined || raw === '') return 'perpsim <perpsim@localhost>'
  // a bare address or `Name <address>`; no line breaks (header injection)
  if (/[\r\n]/.test(raw) || !/^([^<>]*<)?[^\s@<>]+@[^\s@<>]+>?$/.test(raw.trim()))
    throw new ConfigError(`MAIL_FROM=${JSON.stringify(raw)}: expected an address (name@example.org) or "Name <name@example.org>"`)
  return raw.trim()
}

export const DEFAULT_NEWS_FEEDS = [
  'https://www.coindesk.com/arc/outboundfeeds/rss/',
  'https://cointelegraph.com/rss',
  'https://decrypt.co/feed',
]

export function loadConfig(env: Env = process.env): Config {
  const cores = Math.max(1, cpus().length)
  const config: Config = {
    port: int(env, 'PORT', 8000, 0, 65535),
    host: host(env),
    dataDir: resolve(env.DATA_DIR && env.DATA_DIR !== '' ? env.DATA_DIR : './data'),
    adminKey: env.ADMIN_KEY ?? '',
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', ['debug', 'info', 'warn', 'error', 'silent'] as const),
    offline: bool(env, 'OFFLINE', false) as boolean,
    demo: bool(env, 'DEMO', null),
    sync: bool(env, 'SYNC', null),
    jobs: bool(env, 'JOBS', true) as boolean,
    workers: int(env, 'WORKERS', cores, 1, 64),
    queueMax: int(env, 'QUEUE_MAX', 64, 1, 100_000),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1_048_576, 1024, 1 << 30),
    headerLimitBytes: int(env, 'MAX_HEADER_BYTES', 8192, 1024, 1 << 20),
    resultCacheSize: int(env, 'RESULT_CACHE_SIZE', 256, 0, 100_000),
    rateLimitPerMin: int(env, 'RATE_LIMIT_PER_MIN', 120, 0, 1_000_000),
    rateLimitSubscribePerMin: int(env, 'RATE_LIMIT_SUBSCRIBE_PER_MIN', 5, 0, 1_000_000),
    rateLimitOtherPerMin: int(env, 'RATE_LIMIT_OTHER_PER_MIN', 600, 0, 1_000_000),
    rateLimitClients: int(env, 'RATE_LIMIT_CLIENTS', 100_000, 100, 10_000_000),
    trustProxy: int(env, 'TRUST_PROXY', 0, 0, 10),
    shedLagMs: int(env, 'SHED_LAG_MS', 1000, 0, 600_000),
    resultIndexMax: int(env, 'RESULT_INDEX_MAX', 100_000, 100, 100_000_000),
    upstream: {
      binanceSpotUrl: url(env, 'BINANCE_SPOT_URL', 'https://api.binance.com'),
      binanceFuturesUrl: url(env, 'BINANCE_FUTURES_URL', 'https://fapi.binance.com'),
      coingeckoUrl: url(env, 'COINGECKO_URL', 'https://api.coingecko.com/api/v3'),
      fearGreedUrl: url(env, 'FEAR_GREED_URL', 'https://api.alternative.me'),
      newsFeeds: urlList(env, 'NEWS_FEEDS', DEFAULT_NEWS_FEEDS),
      macroUrl: url(env, 'MACRO_URL', 'https://query1.finance.yahoo.com'),
      timeoutMs: int(env, 'UPSTREAM_TIMEOUT_MS', 2000, 100, 60_000),
      refresh: {
        marketMs: int(env, 'MARKET_REFRESH_MS', 300_000, 1_000, DAY_MS),
        marketMaxAgeMs: int(env, 'MARKET_MAX_AGE_MS', 1_800_000, 1_000, DAY_MS),
        liveMs: int(env, 'LIVE_PRICES_TTL_MS', 30_000, 1_000, HOUR_MS),
        newsMs: int(env, 'NEWS_REFRESH_MS', 60_000, 1_000, DAY_MS),
        macroMs: int(env, 'MACRO_REFRESH_MS', 300_000, 1_000, DAY_MS),
      },
    },
    publicUrl: env.PUBLIC_URL ? url(env, 'PUBLIC_URL', '') : null,
    mail: { smtpUrl: smtpUrl(env), from: mailFrom(env) },
    push: {
      allowPrivate: bool(env, 'WEBHOOK_ALLOW_PRIVATE', false) as boolean,
      telegramApiUrl: url(env, 'TELEGRAM_API_URL', 'https://api.telegram.org'),
      discordApiUrl: url(env, 'DISCORD_API_URL', 'https://discord.com/api'),
      timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    },
    events: {
      streamsPerClient: int(env, 'EVENTS_STREAMS_PER_CLIENT', 10, 1, 100_000),
      streamsMax: int(env, 'EVENTS_STREAMS_MAX', 5000, 1, 1_000_000),
      pollMs: int(env, 'EVENTS_POLL_MS', 1000, 10, 10_000),
      bufferBytes: int(env, 'EVENTS_BUFFER_BYTES', 1_048_576, 4096, 1 << 30),
    },
    redis: {
      url: redisUrl(env),
      prefix: redisPrefix(env),
      taskDeadlineMs: int(env, 'QUEUE_TASK_DEADLINE_MS', 300_000, 1_000, DAY_MS),
      lockMs: int(env, 'QUEUE_LOCK_MS', 30_000, 1_000, 600_000),
      stalledMs: int(env, 'QUEUE_STALLED_MS', 15_000, 500, 600_000),
    },
  }
  // DATABASE_URL: postgres:// or unset (refused here, so no process starts on the wrong records)
  configuredDatabase(config, env)
  return config
}
