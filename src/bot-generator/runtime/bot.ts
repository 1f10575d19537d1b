/**
 * The generated trading bot (docs/bots.md §5). The service bundles this file with the
 * project's own strategy, indicator and trade-model modules into one bot.mjs for node
 * (bundle.macro.ts), so the bot evaluates exactly the service's condition tree.
 *
 *   node bot.mjs --self-test [--print-signals]   replay selftest/ (no install, no network)
 *   node bot.mjs [--once]                         run (--once: one pass, then exit; for cron);
 *                                                 dry-run unless config.live AND BOT_LIVE=yes
 * EXCHANGE_API_URL in the environment sends every API call to that origin instead of the
 * exchange's (a testnet, a local test server).
 *
 * Running: after each candle of the configured timeframe closes, for every coin: fetch the
 * closed candles (ccxt), evaluate the entry tree on them; with a signal at the last closed
 * candle, no position in that coin and the new candle's UTC hour not in avoid_hours, enter
 * at market now (the next candle's open), then place reduce-only stop-loss and take-profit
 * orders on the exchange. A position is closed at market after max_bars candles or when the
 * exit tree holds. Positions live in the state file, written atomically, so a restart
 * picks them up.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bucketStart, TIMEFRAME_MS } from '../../market/timeframe'
import { prepareStrategy } from '../../strategies/compile'
import type { BotConfig } from '../bot-config'
import { barsOfColumns, entryMasks, replaySignals, type BotSignal, type CandleColumns } from '../replay'

const HERE = dirname(fileURLToPath(import.meta.url))

function log(msg: string): void {
  console.log(`${new Date().toISOString()} ${msg}`)
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T
}

// ---- self-test -------------------------------------------------------------------------

/** Replays the shipped candles; 0 only when every coin's signals equal the shipped ones. */
export function selfTest(dir: string, cfg: BotConfig, print: boolean): number {
  const expected = readJson<Record<string, BotSignal[]>>(join(dir, 'selftest', 'signals.json'))
  const compiled = prepareStrategy(cfg.strategy)
  const found: Record<string, BotSignal[]> = {}
  let failures = 0
  let total = 0
  for (const coin of Object.keys(expected)) {
    const cols = readJson<CandleColumns>(join(dir, 'selftest', 'candles', `${coin}.json`))
    const got = replaySignals(barsOfColumns(cols, TIMEFRAME_MS[cfg.timeframe]), cfg, compiled)
    found[coin] = got
    total += got.length
    const want = expected[coin]
    const same = got.length === want.length && got.every((s, i) => JSON.stringify(s) === JSON.stringify(want[i]))
    if (!same) {
      failures++
      console.error(`self-test FAILED for ${coin}: found ${got.length} signals, expected ${want.length}`)
      const n = Math.max(got.length, want.length)
      for (let i = 0; i < n; i++)
        if (JSON.stringify(got[i]) !== JSON.stringify(want[i])) {
          console.error(`  first difference at #${i}: found ${JSON.stringify(got[i] ?? null)}, expected ${JSON.stringify(want[i] ?? null)}`)
          break
        }
    }
  }
  if (print) console.log(JSON.stringify(found))
  const coins = Object.keys(expected).length
  if (failures === 0) console.error(`self-test passed: ${total} signals on ${coins} coin${coins === 1 ? '' : 's'} equal the service's`)
  return failures === 0 ? 0 : 1
}

// ---- state -----------------------------------------------------------------------------

interface Position {
  coin: string
  side: 'long' | 'short'
  qty: number
  entry_price: number
  entry_time_ms: number
  sl_price: number
  tp_price: number
  /** exchange order ids of the reduce-only stop-loss and take-profit orders (null in dry-run) */
  sl_order_id: string | null
  tp_order_id: string | null
  dry_run: boolean
}

interface BotState {
  positions: Record<string, Position>
  /** open time of the last candle acted on, per coin: a restart never acts twice on one candle */
  last_candle_ms: Record<string, number>
}

function loadState(path: string): BotState {
  if (!existsSync(path)) return { positions: {}, last_candle_ms: {} }
  return readJson<BotState>(path)
}

function saveState(path: string, state: BotState): void {
  const tmp = `${path}.tmp`
  writeFileSync(tmp, JSON.stringify(state, null, 2))
  renameSync(tmp, path)
}

// ---- running ---------------------------------------------------------------------------

/** ccxt's unified symbol of a USDT-margined perpetual: BTCUSDT -> BTC/USDT:USDT */
export function marketSymbol(coin: string): string {
  return `${coin.slice(0, -4)}/USDT:USDT`
}

const CCXT_TIMEFRAME: Record<string, string> = { '1H': '1h', '2H': '2h', '4H': '4h', '6H': '6h', '12H': '12h', '1D': '1d', '1W': '1w' }

interface Exchange {
  fetchOHLCV(symbol: string, timeframe: string, since?: number, limit?: number): Promise<number[][]>
  createOrder(symbol: string, type: string, side: string, amount: number, price?: number, params?: Record<string, unknown>): Promise<{ id: string; average?: number; price?: number }>
  cancelOrder(id: string, symbol: string, params?: Record<string, unknown>): Promise<unknown>
  fetchOrder(id: string, symbol: string, params?: Record<string, unknown>): Promise<{ status?: string }>
  setLeverage?(leverage: number, symbol: string): Promise<unknown>
  amountToPrecision(symbol: string, amount: number): string
  loadMarkets(): Promise<unknown>
}

async function connect(cfg: BotConfig, live: boolean): Promise<Exchange> {
  const ccxt = (await import('ccxt')) as unknown as { default?: Record<string, unknown> } & Record<string, unknown>
  const lib = (ccxt.default ?? ccxt) as Record<string, new (o: Record<string, unknown>) => Exchange>
  const Ctor = lib[cfg.exchange]
  if (typeof Ctor !== 'function') throw new Error(`ccxt has no exchange '${cfg.exchange}'`)
  // fetchCurrencies off: the wallet's coin list (Binance: a spot endpoint) is not needed to trade perpetuals.
  // No defaultType: the unified symbol BASE/USDT:USDT names the linear perpetual on every exchange.
  const opts: Record<string, unknown> = { enableRateLimit: true, options: { fetchCurrencies: false } }
  if (live) {
    opts.apiKey = process.env.API_KEY
    opts.secret = process.env.API_SECRET
  }
  const ex = new Ctor(opts)
  const origin = process.env.EXCHANGE_API_URL
  if (origin) retarget((ex as unknown as { urls: { api: Record<string, unknown> } }).urls.api, origin)
  await ex.loadMarkets()
  return ex
}

/** Every API URL of a ccxt exchange moved to `origin`, paths kept. */
function retarget(api: Record<string, unknown>, origin: string): void {
  const prefix = origin.replace(/\/$/, '')
  for (const [key, value] of Object.entries(api)) {
    if (typeof value === 'string' && /^https?:/.test(value)) api[key] = prefix + new URL(value).pathname
    else if (value && typeof value === 'object') retarget(value as Record<string, unknown>, origin)
  }
}

/** The coin's closed candles (the candle still forming is dropped). */
async function closedCandles(ex: Exchange, cfg: BotConfig, coin: string, nowMs: number): Promise<CandleColumns> {
  const stepMs = TIMEFRAME_MS[cfg.timeframe]
  const rows = await ex.fetchOHLCV(marketSymbol(coin), CCXT_TIMEFRAME[cfg.timeframe], undefined, cfg.history_candles + 1)
  const cols: CandleColumns = { t: [], o: [], h: [], l: [], c: [], v: [] }
  for (const r of rows) {
    if (r[0] + stepMs > nowMs) continue
    cols.t.push(r[0])
    cols.o.push(r[1])
    cols.h.push(r[2])
    cols.l.push(r[3])
    cols.c.push(r[4])
    cols.v.push(r[5])
  }
  return cols
}

/** ccxt's flag for the stop-loss / take-profit (conditional) orders, which some exchanges keep apart (Binance: algo orders) */
const TRIGGER = { trigger: true }

async function closePosition(ex: Exchange, pos: Position, why: string, price: number): Promise<void> {
  const sym = marketSymbol(pos.coin)
  if (pos.dry_run) {
    log(`[dry-run] ${pos.coin}: would close the ${pos.side} (${why}) at market, about ${price}, and cancel its stop-loss and take-profit orders`)
    return
  }
  for (const id of [pos.sl_order_id, pos.tp_order_id]) if (id) await ex.cancelOrder(id, sym, TRIGGER).catch(() => undefined)
  await ex.createOrder(sym, 'market', pos.side === 'long' ? 'sell' : 'buy', pos.qty, undefined, { reduceOnly: true })
  log(`${pos.coin}: closed the ${pos.side} (${why})`)
}

/** Whether the exchange (live) or the last candle (dry-run) says the stop or the target was hit. */
async function exitedOnExchange(ex: Exchange, pos: Position, cols: CandleColumns): Promise<string | null> {
  const i = cols.t.length - 1
  if (pos.dry_run) {
    if (i < 0 || cols.t[i] < pos.entry_time_ms) return null
    const hitSl = pos.side === 'long' ? cols.l[i] <= pos.sl_price : cols.h[i] >= pos.sl_price
    const hitTp = pos.side === 'long' ? cols.h[i] >= pos.tp_price : cols.l[i] <= pos.tp_price
    return hitSl ? 'stop loss' : hitTp ? 'take profit' : null
  }
  const sym = marketSymbol(pos.coin)
  for (const [id, what] of [[pos.sl_order_id, 'stop loss'], [pos.tp_order_id, 'take profit']] as const) {
    if (!id) continue
    const o = await ex.fetchOrder(id, sym, TRIGGER)
    if (o.status === 'closed') {
      const other = id === pos.sl_order_id ? pos.tp_order_id : pos.sl_order_id
      if (other) await ex.cancelOrder(other, sym, TRIGGER).catch(() => undefined)
      return what
    }
  }
  return null
}

async function enter(ex: Exchange, cfg: BotConfig, coin: string, price: number, live: boolean, nowMs: number): Promise<Position> {
  const sym = marketSymbol(coin)
  const long = cfg.direction === 'long'
  const rawQty = (cfg.position_size_usd * cfg.leverage) / price
  const qty = Number(ex.amountToPrecision(sym, rawQty))
  const level = (fill: number) => ({
    sl: fill * (1 + ((long ? -1 : 1) * cfg.sl_pct) / 100),
    tp: fill * (1 + ((long ? 1 : -1) * cfg.tp_pct) / 100),
  })
  if (!live) {
    const { sl, tp } = level(price)
    log(`[dry-run] ${coin}: would ${long ? 'buy' : 'sell'} ${qty} at market (~${price}), leverage ${cfg.leverage}; reduce-only stop loss at ${sl}, take profit at ${tp}`)
    return { coin, side: cfg.direction, qty, entry_price: price, entry_time_ms: nowMs, sl_price: sl, tp_price: tp, sl_order_id: null, tp_order_id: null, dry_run: true }
  }
  if (ex.setLeverage) await ex.setLeverage(cfg.leverage, sym)
  const order = await ex.createOrder(sym, 'market', long ? 'buy' : 'sell', qty)
  const fill = order.average ?? order.price ?? price
  const { sl, tp } = level(fill)
  const closeSide = long ? 'sell' : 'buy'
  const slOrder = await ex.createOrder(sym, 'market', closeSide, qty, undefined, { reduceOnly: true, stopLossPrice: sl })
  const tpOrder = await ex.createOrder(sym, 'market', closeSide, qty, undefined, { reduceOnly: true, takeProfitPrice: tp })
  log(`${coin}: entered ${cfg.direction} ${qty} at ${fill}; stop loss ${sl} (order ${slOrder.id}), take profit ${tp} (order ${tpOrder.id})`)
  return { coin, side: cfg.direction, qty, entry_price: fill, entry_time_ms: nowMs, sl_price: sl, tp_price: tp, sl_order_id: slOrder.id, tp_order_id: tpOrder.id, dry_run: false }
}

/** One pass over the coins after a candle closed. */
async function cycle(ex: Exchange, cfg: BotConfig, state: BotState, statePath: string, live: boolean): Promise<void> {
  const compiled = prepareStrategy(cfg.strategy)
  const stepMs = TIMEFRAME_MS[cfg.timeframe]
  const nowMs = Date.now()
  for (const coin of cfg.coins) {
    try {
      const cols = await closedCandles(ex, cfg, coin, nowMs)
      const n = cols.t.length
      if (n < 2) continue
      const last = cols.t[n - 1]
      if (state.last_candle_ms[coin] === last) continue
      const bars = barsOfColumns(cols, stepMs)
      const { entry, exit } = entryMasks(compiled, bars, cfg)
      const pos = state.positions[coin]
      if (pos) {
        const hit = await exitedOnExchange(ex, pos, cols)
        // candles held: the entry candle is the first (as in the backtests)
        const held = Math.floor((last - pos.entry_time_ms) / stepMs) + 1
        if (hit) {
          log(`${coin}: the ${hit} closed the ${pos.side}`)
          delete state.positions[coin]
        } else if (held >= cfg.max_bars) {
          await closePosition(ex, pos, `max ${cfg.max_bars} candles held`, cols.c[n - 1])
          delete state.positions[coin]
        } else if (exit !== null && exit[n - 1] === 1) {
          await closePosition(ex, pos, 'exit condition', cols.c[n - 1])
          delete state.positions[coin]
        }
      }
      // a position closed on this candle lets its signal enter now, as in the backtests
      if (!state.positions[coin] && entry[n - 1] === 1) state.positions[coin] = await enter(ex, cfg, coin, cols.c[n - 1], live, last + stepMs)
      state.last_candle_ms[coin] = last
      saveState(statePath, state)
    } catch (e) {
      log(`${coin}: ${(e as Error).message}`)
    }
  }
}

async function run(cfg: BotConfig, once: boolean): Promise<void> {
  const live = cfg.live === true && process.env.BOT_LIVE === 'yes'
  if (cfg.live === true && !live) log('config.live is true but BOT_LIVE=yes is not set: running dry')
  if (live && !(process.env.API_KEY && process.env.API_SECRET)) throw new Error('live trading needs API_KEY and API_SECRET in the environment')
  log(`${cfg.name}: ${live ? 'LIVE' : 'dry-run'} on ${cfg.exchange}, ${cfg.coins.length} coins, ${cfg.timeframe}`)
  const statePath = join(HERE, cfg.state_file)
  const state = loadState(statePath)
  const ex = await connect(cfg, live)
  const stepMs = TIMEFRAME_MS[cfg.timeframe]
  for (;;) {
    await cycle(ex, cfg, state, statePath, live)
    if (once) return
    // a few seconds after the next candle closes, so the exchange has it
    const now = Date.now()
    const wait = bucketStart(now, cfg.timeframe) + stepMs - now + 5_000
    await new Promise(r => setTimeout(r, wait))
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const cfg = readJson<BotConfig>(join(HERE, 'config.json'))
  if (args.includes('--self-test')) process.exit(selfTest(HERE, cfg, args.includes('--print-signals')))
  await run(cfg, args.includes('--once'))
}

main().catch(e => {
  console.error(e)
  process.exit(1)
})
