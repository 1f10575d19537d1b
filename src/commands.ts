/**
 * The commands of `perpsim <command>` (src/cli.ts, the process's entry, sets the process up
 * and hands its arguments to `runCommandLine`):
 *   serve                                   start the service (what `npm start` runs)
 *   worker                                  run queued simulation tasks (REDIS_URL) on this host's threads
 *   data generate [--coins N] [--days D] [--seed S] [--force]
 *   data import [--replace-synthetic] <path...>
 *   data sync [--symbols A,B] [--since YYYY-MM-DD] [--derivatives] [--mark] [--brackets]
 *   data info
 *   jobs list | jobs run <name> [--date YYYY-MM-DD]
 *   trust verify <leaf.json> --date YYYYMMDD [--url URL]
 *   realtrack import <csv>
 *   mail weekly [--dry-run]
 *   db migrate [--database URL] | db copy [--from sqlite:PATH] [--to postgres://…] [--allow-non-empty]
 * Every command reads its settings from the environment (see README) and writes the
 * store under DATA_DIR.
 */
import { renameSync } from 'node:fs'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { systemClock } from './clock'
import { ConfigError, loadConfig, type Config } from './config'
import { createLogger } from './log'
import { CandleStore } from './market/candle-store'
import { escapeControl, formatImportReport, importPaths } from './market/import-binance'
import { formatSyncReport, syncFromExchange } from './market/sync-ccxt'
import { generateStore, storeDerivedDetail, SYNTHETIC_DEFAULTS } from './market/generate-store'
import { importMarketCapFile, MarketCapImportError } from './market/import-market-caps'
import { fetchCoinGeckoMarketCaps } from './market/coingecko-market-caps'
import { CoinGeckoClient } from './upstream/coingecko'
import { isoDay, MINUTE_MS, parseCompactDay, parseDay } from './time'
import { lowerBound } from './sorted-search'
import { startServer } from './main'
import { jobsCommand } from './jobs/cli'
import { candleFeedFor } from './jobs/candles'
import { dbCommand } from './cli-db'
import { join } from 'node:path'
import { openConfiguredDb } from './db'
import { importNavFile, readLeafFile, verifyLeaf } from './cli-trust'
import { mailerFor } from './mail/mailer'
import { runWeeklyMail } from './mail/weekly'
import { scoredSignalsSource } from './mail/weekly-signals'

const USAGE = `usage: perpsim <command>
  serve                                       start the HTTP service
  worker                                      run the queue's simulation tasks (REDIS_URL) on this host's
                                              WORKERS threads, reading the store under DATA_DIR
  data generate [--coins N] [--days D] [--seed S] [--force] [--detail-stored N]
                                              write the synthetic universe (--force replaces a non-empty store;
                                              --detail-stored N also writes the first N coins' minutes as stored 1m detail)
  data import [--replace-synthetic] [--delisted A,B] <path...>
                                              import Binance kline / funding / universe CSV (.csv, .csv.gz, .zip, folders);
                                              --delisted: these perps' markets closed (their candles end)
  data market-caps <file.csv> | --coingecko [--days N]
                                              daily market caps for the rank history (CSV: date,symbol,market_cap)
  data sync [--symbols A,B] [--since YYYY-MM-DD] [--detail 1m] [--derivatives] [--mark] [--brackets]
                                              sync 1H candles and funding from Binance USDT-M (ccxt);
                                              --detail 1m also the 1m candles (minute detail);
                                              --derivatives: also premium index and open interest
                                              --mark: also the 1h mark-price candles (liquidation tests them)
                                              --brackets: also the leverage brackets (needs BINANCE_API_KEY
                                              and BINANCE_API_SECRET: a signed endpoint)
  data info                                   what the store holds
  jobs list                                   scheduled jobs: schedule (UTC), next run, last run and outcome
  jobs run <name> [--date YYYY-MM-DD]         run one slot of a job now (default: its latest slot), printing progress
  trust verify <leaf.json> --date YYYYMMDD [--url URL]
                                              check a leaf against its day root (local database, or a server)
  realtrack import <csv>                      import the real-money NAV track (columns t|time|date, nav)
  mail weekly [--dry-run]                     queue and send this week's alert now (--dry-run: print it, send nothing)
  db migrate [--database sqlite:PATH|postgres://…]
                                              apply the migrations of the records' database (default: DATABASE_URL,
                                              unset: DATA_DIR/perpsim.sqlite)
  db copy [--from sqlite:PATH] [--to postgres://…] [--allow-non-empty]
                                              move the records from the SQLite file to Postgres (default --to:
                                              DATABASE_URL) in one transaction, verified (row counts, day files' sha256)`

class UsageError extends Error {}
/** a failure that is not the caller's wording: one line, exit 1 */
class RuntimeError extends Error {}

/** node:util parseArgs, with its refusals (unknown flag, `--coins -5`) as one-line usage errors. */
function parseFlags<const T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  // `--coins -5`: a value that starts with a dash is still the option's value, so that the
  // option's own check names it ("--coins -5: expected an integer from 1 to 2000")
  const opts = (config.options ?? {}) as Record<string, { type: string }>
  const given = config.args ?? []
  const joined: string[] = []
  for (let i = 0; i < given.length; i++) {
    const a = given[i]
    const name = a.startsWith('--') && !a.includes('=') ? a.slice(2) : null
    if (name && opts[name]?.type === 'string' && i + 1 < given.length && given[i + 1].startsWith('-')) joined.push(`${a}=${given[++i]}`)
    else joined.push(a)
  }
  try {
    return parseArgs({ ...config, args: joined } as T)
  } catch (e) {
    const code = (e as { code?: string }).code ?? ''
    if (!code.startsWith('ERR_PARSE_ARGS')) throw e
    throw new UsageError((e as Error).message.split('\n')[0].replace(/\. To specify.*$/, ''))
  }
}

/**
 * `data sync` asks the exchange once, briefly, before anything else: offline (or with the
 * URL unreachable) it gives up within seconds with one line, instead of retrying for minutes.
 */
async function reachable(baseUrl: string, timeoutMs = 5000): Promise<string | null> {
  try {
    await fetch(`${baseUrl}/fapi/v1/ping`, { signal: AbortSignal.timeout(timeoutMs) })
    return null
  } catch (e) {
    const err = e as Error & { code?: string }
    return err.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : (err.code ?? err.message.split('\n')[0])
  }
}

function positiveInt(name: string, raw: string | undefined, def: number, max: number): number {
  if (raw === undefined) return def
  const v = Number(raw)
  if (!Number.isInteger(v) || v < 1 || v > max) throw new UsageError(`--${name} ${raw}: expected an integer from 1 to ${max}`)
  return v
}

async function dataGenerate(config: Config, args: string[]): Promise<void> {
  const { values } = parseFlags({ args, options: { coins: { type: 'string' }, days: { type: 'string' }, seed: { type: 'string' }, force: { type: 'boolean' }, 'detail-stored': { type: 'string' } } })
  const coins = positiveInt('coins', values.coins, SYNTHETIC_DEFAULTS.coins, 2000)
  const days = positiveInt('days', values.days, SYNTHETIC_DEFAULTS.days, 3650)
  const seed = positiveInt('seed', values.seed, SYNTHETIC_DEFAULTS.seed, 2 ** 31 - 1)
  const detailCoins = values['detail-stored'] === undefined ? null : positiveInt('detail-stored', values['detail-stored'], coins, coins)
  const existing = CandleStore.open(config.dataDir)
  if (existing.coinCount > 0 && !values.force)
    throw new UsageError(`the store at ${existing.root} already holds ${existing.coinCount} coins; add --force to replace it`)
  const started = performance.now()
  const res = generateStore(config.dataDir, {
    coins,
    days,
    seed,
    delistings: SYNTHETIC_DEFAULTS.delistings,
    endMs: systemClock.now(),
    onProgress: (done, total) => {
      if (done === total || done % 50 === 0) process.stderr.write(`generated ${done}/${total} coins\n`)
    },
  }, true)
  console.log(`generated ${res.coins} coins, ${res.rows} candles in ${((performance.now() - started) / 1000).toFixed(1)} s into ${res.store.root}`)
  if (detailCoins !== null) {
    // the derived minutes written to disk as stored 1m detail (the stored-detail benchmark's store)
    const n = detailCoins
    const t0 = performance.now()
    const minutes = storeDerivedDetail(res.store, seed, n, (done, total) => {
      if (done === total || done % 10 === 0) process.stderr.write(`stored the minutes of ${done}/${total} coins\n`)
    })
    console.log(`stored ${minutes} minutes of 1m detail for ${n} coins in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  }
}

async function dataImport(config: Config, args: string[]): Promise<number> {
  const { values, positionals: paths } = parseFlags({ args, allowPositionals: true, options: { 'replace-synthetic': { type: 'boolean' }, delisted: { type: 'string' } } })
  if (paths.length === 0) throw new UsageError('data import needs at least one file or folder')
  const delisted = values.delisted?.split(',').map(s => s.trim().toUpperCase()).filter(Boolean) ?? []
  let store = CandleStore.open(config.dataDir)
  if (store.isSynthetic()) {
    // real candles never continue generated ones: the synthetic store is set aside first
    if (!values['replace-synthetic'])
      throw new UsageError(`the store at ${store.root} holds synthetic data; add --replace-synthetic to move it aside and import into a fresh store`)
    const aside = `${store.root}.synthetic-${Date.now()}`
    renameSync(store.root, aside)
    process.stderr.write(`moved the synthetic store to ${aside}\n`)
    store = CandleStore.open(config.dataDir)
  }
  const report = await importPaths(store, paths, line => process.stderr.write(escapeControl(line) + '\n'))
  console.log(formatImportReport(report))
  // Binance's archive of a delisted perp is like any other: the caller names the closed markets
  for (const symbol of delisted) {
    if (store.lastCandleMs(symbol) === null) throw new RuntimeError(`--delisted ${symbol}: the store has no candles of it`)
    store.markDelisted(symbol)
    console.log(`${symbol}: delisted, last candle ${isoDay(store.lastCandleMs(symbol)!)}`)
  }
  return report.files.some(f => f.error) ? 1 : 0
}

async function dataMarketCaps(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseFlags({ args, allowPositionals: true, options: { coingecko: { type: 'boolean' }, days: { type: 'string' } } })
  const store = CandleStore.open(config.dataDir)
  if (values.coingecko) {
    if (positionals.length) throw new UsageError('data market-caps: give a CSV file or --coingecko, not both')
    if (config.offline) throw new UsageError('data market-caps --coingecko needs the network, and OFFLINE=1 forbids outbound calls')
    const days = positiveInt('days', values.days, 1095, 3650)
    const client = new CoinGeckoClient({ baseUrl: config.upstream.coingeckoUrl, timeoutMs: Math.max(config.upstream.timeoutMs, 10_000) })
    const r = await fetchCoinGeckoMarketCaps(client, store, { days, pauseMs: 2500, log: line => process.stderr.write(line + '\n') })
    console.log(`market caps from CoinGecko: ${r.matched} coins matched, ${r.appended} days stored; not listed there (ranked by volume): ${r.unmatched.length}; failed: ${r.failed.length}`)
    return r.failed.length ? 1 : 0
  }
  if (positionals.length !== 1) throw new UsageError('data market-caps needs one CSV file (date,symbol,market_cap) or --coingecko')
  try {
    const r = importMarketCapFile(store, positionals[0])
    console.log(`market caps: ${r.rows} rows of ${r.symbols} coins (${r.firstDay} to ${r.lastDay}); ${r.appended} stored, ${r.skipped} already held`)
    return 0
  } catch (e) {
    if (e instanceof MarketCapImportError) throw new RuntimeError(`${positionals[0]}: ${e.message}; nothing was stored`)
    throw e
  }
}

async function dataSync(config: Config, args: string[]): Promise<number> {
  if (config.offline) throw new UsageError('data sync needs the network, and OFFLINE=1 forbids outbound calls')
  const { values } = parseFlags({ args, options: { symbols: { type: 'string' }, since: { type: 'string' }, detail: { type: 'string' }, derivatives: { type: 'boolean' }, mark: { type: 'boolean' }, brackets: { type: 'boolean' } } })
  if (values.detail !== undefined && values.detail !== '1m') throw new UsageError(`--detail ${values.detail}: the only detail timeframe is 1m`)
  const credentials = apiCredentials()
  if (values.brackets && !credentials)
    throw new UsageError('--brackets: Binance signs its bracket endpoint; set BINANCE_API_KEY and BINANCE_API_SECRET (a read-only key is enough), or import a fetchLeverageTiers JSON file with data import')
  const baseUrl = (process.env.BINANCE_FUTURES_URL || 'https://fapi.binance.com').replace(/\/+$/, '')
  const unreachable = await reachable(baseUrl)
  if (unreachable) throw new RuntimeError(`data sync: cannot reach ${baseUrl} (${unreachable}); offline? nothing was changed`)
  if (values.since !== undefined && parseDay(values.since) === null) throw new UsageError(`--since ${values.since}: expected YYYY-MM-DD`)
  const symbols = values.symbols?.split(',').map(s => s.trim().toUpperCase()).filter(Boolean)
  const store = CandleStore.open(config.dataDir)
  const report = await syncFromExchange(store, {
    symbols,
    since: values.since,
    detail: values.detail === '1m' ? '1m' : undefined,
    derivatives: values.derivatives === true,
    mark: values.mark === true,
    brackets: values.brackets === true,
    credentials: values.brackets && credentials ? credentials : undefined,
    baseUrl: process.env.BINANCE_FUTURES_URL || undefined,
    log: line => process.stderr.write(line + '\n'),
  })
  console.log(formatSyncReport(report))
  return report.failed > 0 || report.stopped || (report.brackets?.errors.length ?? 0) > 0 ? 1 : 0
}

/** Both halves of a Binance API key from the environment, or null when either is unset. */
function apiCredentials(): { apiKey: string; secret: string } | null {
  const apiKey = process.env.BINANCE_API_KEY?.trim()
  const secret = process.env.BINANCE_API_SECRET?.trim()
  return apiKey && secret ? { apiKey, secret } : null
}

async function mailWeekly(config: Config, args: string[]): Promise<number> {
  let values: { 'dry-run'?: boolean }
  try {
    values = parseArgs({ args, options: { 'dry-run': { type: 'boolean' } } }).values
  } catch (e) {
    throw new UsageError(`mail weekly: ${(e as Error).message}`)
  }
  const log = createLogger(config.logLevel)
  const db = await openConfiguredDb(config)
  const mailer = mailerFor(config, db, systemClock, log)
  try {
    const r = await runWeeklyMail({ db, clock: systemClock, mailer, signals: scoredSignalsSource(db) }, systemClock.now(), { dryRun: values['dry-run'] })
    if (r.samples) {
      console.log(`dry run, week ${r.week}: ${r.subscribers} active subscribers would get this (English text part; nothing stored or sent):\n`)
      console.log(`Subject: ${r.samples.en.subject}\n\n${r.samples.en.text}`)
      return 0
    }
    if (r.delivery === null) {
      console.log(`week ${r.week}: no active subscribers, nothing to send`)
      return 0
    }
    const d = r.delivery
    console.log(`week ${r.week}: ${r.subscribers} active subscribers, ${r.queued} newly queued; ${d.sent} sent via ${mailer.transportDescription}, ${d.retrying} to retry, ${d.failed} failed`)
    return d.failed > 0 ? 1 : 0
  } finally {
    mailer.close()
    await db.close()
  }
}

function dataInfo(config: Config): void {
  const store = CandleStore.open(config.dataDir)
  console.log(`store: ${store.root}`)
  console.log(`sources: ${store.sources().join(', ') || 'none'}; coins: ${store.coinCount}`)
  const derived = store.isSynthetic()
  console.log(`1m detail: ${store.storedDetailSymbols().size} coins stored${derived ? '; every other coin derived from its synthetic hours (nothing on disk)' : ''}`)
  const withBrackets = store.bracketSymbols().filter(s => store.bars(s))
  const asOf = [...new Set(withBrackets.map(s => { const b = store.brackets(s)!; return `${b.source} ${isoDay(b.asOfMs)}` }))]
  console.log(`margin brackets: ${withBrackets.length} of ${store.symbols().length} coins${asOf.length ? ` (${asOf.join('; ')})` : ''}; the others use the flat 0.5 % rate`)
  const withMark = store.markSymbols().filter(s => store.bars(s)).length
  console.log(`mark price: ${withMark} of ${store.symbols().length} coins have 1h mark-price candles (liquidation tests them); the others are tested on the last price`)
  console.log('symbol            rows  from        to          funding  first funding  last funding  mark price | 1m detail  status')
  const caps = store.marketCapSymbols().length
  console.log(`rank history: ${caps ? `market caps of ${caps} coins, the others` : 'every coin'} ranked by trailing 30-day quote volume`)
  for (const s of store.symbols()) {
    const b = store.bars(s)!
    const f = store.funding(s)
    const status = store.meta(s)?.status === 'delisted' ? 'delisted' : 'trading'
    console.log(
      `${s.padEnd(14)} ${String(b.n).padStart(7)}  ${isoDay(b.t[0])}  ${isoDay(b.t[b.n - 1])}  ${String(f?.n ?? 0).padStart(7)}  ${f?.n ? isoDay(f.t[0]) : '-'.padEnd(10)}     ${(f?.n ? isoDay(f.t[f.n - 1]) : '-').padEnd(10)}    ${markCoverage(store, s)} | ${detailCoverage(store, s).padEnd(9)}  ${status}`,
    )
  }
}

/** a symbol's 1m detail for `data info`: stored minutes and their span (with the share of the hours' span they cover), derived, or none */
function detailCoverage(store: CandleStore, symbol: string): string {
  const source = store.detailSource(symbol)
  if (source === 'derived') return 'derived'
  if (source === null) return '-'
  const c = store.detailCoverage(symbol)!
  const span = (c.lastMs - c.firstMs) / MINUTE_MS + 1
  return `${c.minutes} min ${isoDay(c.firstMs)} to ${isoDay(c.lastMs)} (${((100 * c.minutes) / span).toFixed(1)} % of the minutes in that span)`
}

/** a symbol's mark-price candles for `data info`: how many hours, their span and the share of the candles' hours they cover */
function markCoverage(store: CandleStore, symbol: string): string {
  const m = store.mark(symbol)
  if (!m) return '-'
  const b = store.bars(symbol)!
  const from = lowerBound(m.t, b.t[0])
  let covered = 0
  for (let i = 0, j = from; i < b.n && j < m.n; i++) {
    while (j < m.n && m.t[j] < b.t[i]) j++
    if (j < m.n && m.t[j] === b.t[i]) covered++
  }
  return `${m.n} h ${isoDay(m.t[0])} to ${isoDay(m.t[m.n - 1])} (${((100 * covered) / b.n).toFixed(1)} % of the candles' hours)`
}

async function trustVerify(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { date: { type: 'string' }, url: { type: 'string' } } })
  if (positionals.length !== 1) throw new UsageError('trust verify needs one leaf file')
  if (!values.date || parseCompactDay(values.date) === null) throw new UsageError(`--date ${values.date ?? ''}: expected a UTC calendar day as YYYYMMDD`)
  const leaf = readLeafFile(positionals[0]!)
  const db = values.url ? null : await openConfiguredDb(config)
  const res = await verifyLeaf(leaf, values.date, values.url ? { url: values.url } : { db: db! })
  await db?.close()
  console.log(res.message)
  return res.ok ? 0 : 1
}

async function realtrackImport(config: Config, args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} })
  if (positionals.length !== 1) throw new UsageError('realtrack import needs one CSV file')
  const db = await openConfiguredDb(config)
  const res = await importNavFile(db, positionals[0]!, systemClock.now())
  await db.close()
  for (const e of res.errors) process.stderr.write(`unreadable row: ${e}\n`)
  if (res.errors.length) return 1
  console.log(`real track: ${res.added} new points of ${res.rows} (bot and session columns are not stored)`)
  return 0
}

/** `perpsim worker`: this host's threads on the queue, until SIGTERM or SIGINT (running tasks finish first). */
async function queueWorker(config: Config): Promise<number> {
  if (!config.redis.url) throw new UsageError('perpsim worker needs REDIS_URL (redis://host:port): the queue it takes tasks from')
  const log = createLogger(config.logLevel)
  const store = CandleStore.open(config.dataDir)
  if (store.coinCount === 0) throw new RuntimeError(`the store at ${store.root} is empty: a worker runs on the same store as the API (data import / data sync / data generate)`)
  // BullMQ is loaded by this command only (about 120 ms of every other command's start)
  const { startQueueWorker } = await import('./runs/queue-worker')
  const worker = await startQueueWorker({
    url: config.redis.url,
    prefix: config.redis.prefix,
    dataDir: config.dataDir,
    threads: config.workers,
    lockMs: config.redis.lockMs,
    stalledMs: config.redis.stalledMs,
    log: message => log.warn(message),
    // the same hourly candles as `serve` (SYNC, DEMO), so the worker's store keeps up with the API's
    feed: s => candleFeedFor(config, s, systemClock, log),
  })
  log.info(`perpsim worker ${worker.name}: ${config.workers} threads on ${store.coinCount} coins (data version ${worker.dataVersion()}), queue prefix ${config.redis.prefix}`)
  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) process.exit(1)
    stopping = true
    log.info(`${signal}: stopping (no new tasks; running ones finish)`)
    await worker.close()
    process.exit(0)
  }
  process.on('SIGINT', () => void shutdown('SIGINT'))
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  return -1 // keep running
}

async function main(argv: string[]): Promise<number> {
  const config = loadConfig()
  const [cmd, sub, ...rest] = argv
  if (cmd === 'serve') {
    const server = await startServer(config)
    let stopping = false
    const shutdown = async (signal: string) => {
      if (stopping) process.exit(1) // a second signal: stop now
      stopping = true
      server.deps.log?.info(`${signal}: stopping (new connections refused, in-flight requests finish)`)
      await server.stop()
      server.deps.log?.info('stopped')
      process.exit(0)
    }
    process.on('SIGINT', () => void shutdown('SIGINT'))
    process.on('SIGTERM', () => void shutdown('SIGTERM'))
    return -1 // keep running
  }
  if (cmd === 'worker') return queueWorker(config)
  if (cmd === 'data') {
    if (sub === 'generate') return (await dataGenerate(config, rest), 0)
    if (sub === 'import') return dataImport(config, rest)
    if (sub === 'sync') return dataSync(config, rest)
    if (sub === 'info') return (dataInfo(config), 0)
    if (sub === 'market-caps') return dataMarketCaps(config, rest)
  }
  if (cmd === 'jobs') return jobsCommand(config, [sub, ...rest].filter(x => x !== undefined), msg => new UsageError(msg))
  if (cmd === 'trust' && sub === 'verify') return trustVerify(config, rest)
  if (cmd === 'realtrack' && sub === 'import') return realtrackImport(config, rest)
  if (cmd === 'mail' && sub === 'weekly') return mailWeekly(config, rest)
  if (cmd === 'db') return dbCommand(config, [sub, ...rest].filter(x => x !== undefined), msg => new UsageError(msg))
  if (cmd === undefined || cmd === 'help' || cmd === '--help') {
    console.log(USAGE)
    return cmd === undefined ? 2 : 0
  }
  throw new UsageError(`unknown command: ${[cmd, sub].filter(Boolean).join(' ')}`)
}

/** Run one command line (the arguments after the command's name); exits the process when a command ends. */
export function runCommandLine(argv: string[]): void {
  main(argv).then(
    code => {
      if (code >= 0) process.exit(code)
    },
    err => {
      if (err instanceof ConfigError) {
        process.stderr.write(`configuration error: ${err.message}\n`)
        process.exit(2)
      }
      // a command that calls parseArgs itself: its refusal is a usage error too
      if (String((err as { code?: string })?.code ?? '').startsWith('ERR_PARSE_ARGS'))
        err = new UsageError(String((err as Error).message).split('\n')[0].replace(/\. To specify.*$/, ''))
      if (err instanceof UsageError) {
        process.stderr.write(`${escapeControl(err.message)} (perpsim help lists the commands)\n`)
        process.exit(2)
      }
      // one line naming the problem (a bad DATA_DIR, an address that cannot be bound, ...);
      // the stack only with LOG_LEVEL=debug
      const e = err as Error & { code?: string; path?: string }
      const where = e?.path && !String(e.message).includes(e.path) ? ` (${e.path})` : ''
      process.stderr.write(`perpsim: ${escapeControl(String(e?.message ?? err).split('\n')[0])}${where}\n`)
      if (process.env.LOG_LEVEL === 'debug') process.stderr.write(`${e?.stack ?? ''}\n`)
      process.exit(1)
    },
  )
}
