/**
 * POST /generate-bot as a service (docs/bots.md §5): resolves the strategy (a registry id
 * or a custom tree), checks the coins and the exchange, recomputes the backtest of these
 * settings through the run pipeline, and has a worker replay the shipped candles for the
 * self-test's expected signals and zip the bot (bot-generator/pack.ts). No Elysia.
 */
import type { Clock } from '../../clock'
import type { PackInput } from '../../bot-generator/pack'
import type { BotConfig } from '../../bot-generator/bot-config'
import { sanitizeId, type BacktestFigures } from '../../bot-generator/bot-files'
import type { CandleStore } from '../../market/candle-store'
import { resample } from '../../market/resample'
import { InvalidRequest, UnknownSymbols, type Problem } from '../../runs/errors'
import type { RunService } from '../../runs/service'
import { backtestSpec, type BacktestFields } from '../../runs/backtest-spec'
import type { ConditionNode, StrategySpec } from '../../strategies/conditions'
import { lookAheadProblems, validateStrategy } from '../../strategies/validate'
import { prepareStrategy } from '../../strategies/compile'
import { getStrategy } from '../../strategies/registry'
import { VERSION } from '../../version'
import type { GenerateBotRequest } from './model'

export interface GeneratedBot {
  fileName: string
  zip: Uint8Array
}

/** The defaults of a custom strategy's trade settings (those of /backtest). */
const CUSTOM_DEFAULTS = { sl_pct: 10, tp_pct: 8, max_bars: 48 }

/** The strategy and its trade settings, or the 422 that says why not. */
function resolveStrategy(req: GenerateBotRequest): Pick<BotConfig, 'name' | 'strategy_id' | 'direction' | 'strategy' | 'sl_pct' | 'tp_pct' | 'max_bars'> & { description: string | null } {
  const custom = req.entry !== undefined || req.indicators !== undefined || req.exit_conditions !== undefined
  if (req.strategy !== undefined) {
    if (custom) throw new InvalidRequest([{ loc: ['body', 'strategy'], msg: 'give either a registry strategy id or a custom strategy (indicators, entry, exit_conditions), not both', input: req.strategy }])
    const def = getStrategy(req.strategy)
    if (!def) throw new InvalidRequest([{ loc: ['body', 'strategy'], msg: `unknown strategy '${req.strategy}' (see GET /strategies)`, input: req.strategy }])
    if (req.direction !== undefined && req.direction !== def.direction)
      throw new InvalidRequest([{ loc: ['body', 'direction'], msg: `the registry strategy '${def.id}' trades ${def.direction}`, input: req.direction }])
    return {
      name: req.name ?? def.name,
      description: def.description,
      strategy_id: def.id,
      direction: def.direction,
      strategy: { indicators: def.indicators, entry: def.entry, exit_conditions: def.exit_conditions ?? null },
      sl_pct: req.sl_pct ?? def.sl_pct,
      tp_pct: req.tp_pct ?? def.tp_pct,
      max_bars: req.max_bars ?? def.max_bars,
    }
  }
  const problems: Problem[] = []
  if (req.entry === undefined) problems.push({ loc: ['body', 'entry'], msg: 'give a registry strategy id (strategy) or a custom entry condition tree', input: null })
  if (req.direction === undefined) problems.push({ loc: ['body', 'direction'], msg: 'a custom strategy needs its direction (long or short)', input: null })
  if (problems.length) throw new InvalidRequest(problems)
  // a tree that would read later bars is refused, as /backtest refuses it (docs/conditions.md)
  const lookAhead = [...lookAheadProblems(req.entry, ['body', 'entry']), ...lookAheadProblems(req.exit_conditions, ['body', 'exit_conditions'])]
  if (lookAhead.length) throw new InvalidRequest(lookAhead)
  const strategy: StrategySpec = { indicators: req.indicators ?? {}, entry: req.entry as unknown as ConditionNode, exit_conditions: (req.exit_conditions ?? null) as ConditionNode | null }
  const errors = validateStrategy(strategy)
  if (errors.length) throw new InvalidRequest(errors.map(msg => ({ loc: ['body', 'entry'], msg, input: null })))
  // a generated bot reads its own coin's candles only (docs/bots.md): no other coin, timeframe or derivatives data
  if (prepareStrategy(strategy).readsMarketData)
    throw new InvalidRequest([
      {
        loc: ['body', 'entry'],
        msg: 'a generated bot reads only its own coin\'s candles: leaves with timeframe or symbol, and the fields funding_rate, funding_rate_mean, basis and open_interest, cannot run in it',
        input: null,
      },
    ])
  return {
    name: req.name ?? 'Custom strategy bot',
    description: null,
    strategy_id: null,
    direction: req.direction!,
    strategy,
    sl_pct: req.sl_pct ?? CUSTOM_DEFAULTS.sl_pct,
    tp_pct: req.tp_pct ?? CUSTOM_DEFAULTS.tp_pct,
    max_bars: req.max_bars ?? CUSTOM_DEFAULTS.max_bars,
  }
}

function backtestBody(cfg: BotConfig): BacktestFields {
  return {
    name: cfg.name,
    direction: cfg.direction,
    indicators: cfg.strategy.indicators,
    entry: cfg.strategy.entry as unknown as Record<string, unknown>,
    exit_conditions: (cfg.strategy.exit_conditions ?? null) as Record<string, unknown> | null,
    avoid_hours: cfg.avoid_hours,
    avoid_months: null,
    min_vol_regime: null,
    sl_pct: cfg.sl_pct,
    tp_pct: cfg.tp_pct,
    tp_source: 'custom_pct',
    trailing_pct: null,
    max_bars: cfg.max_bars,
    top_n: null,
    symbols: cfg.coins,
    include_stablecoins: false,
    symbol: null,
    start_date: null,
    end_date: null,
    timeframe: cfg.timeframe,
    per_coin_usd: cfg.position_size_usd,
    leverage: cfg.leverage,
    max_concurrent_positions: cfg.coins.length,
    compounding: false,
    stop_at_ruin: true,
  }
}

export interface GenerateDeps {
  store: CandleStore
  runs: RunService
  clock: Clock
  /** ccxt exchange ids the bot may name, the ccxt version it pins, and the bundled bot (loaded on first use) */
  runtime: () => Promise<BotRuntime>
}

export interface BotRuntime {
  exchanges: readonly string[]
  ccxtVersion: string
  botMjs: string
}

/** The bundle, from runtime-source.ts: a dynamic import, so a server that never generates a bot never bundles one from source. */
export async function loadBotRuntime(): Promise<BotRuntime> {
  const m = await import('../../bot-generator/runtime-source')
  return { exchanges: m.CCXT_EXCHANGES, ccxtVersion: m.CCXT_VERSION, botMjs: m.BOT_MJS }
}

/** `noCache`: recompute the backtest even when an identical run is cached (the request's Cache-Control: no-cache). */
export async function generateBot(deps: GenerateDeps, req: GenerateBotRequest, noCache = false): Promise<GeneratedBot> {
  const { description, ...resolved } = resolveStrategy(req)
  const coins = req.coins
  // an unknown symbol is the 404 of every route that takes one
  const unknown = [...new Set(coins.filter(coin => !deps.store.bars(coin)))]
  if (unknown.length) throw new UnknownSymbols(unknown)
  const runtime = await deps.runtime()
  const problems: Problem[] = []
  if (!runtime.exchanges.includes(req.exchange)) problems.push({ loc: ['body', 'exchange'], msg: `'${req.exchange}' is not a ccxt exchange id (binanceusdm, bybit, okx, …)`, input: req.exchange })
  coins.forEach((coin, i) => {
    if (coins.indexOf(coin) !== i) return problems.push({ loc: ['body', 'coins', i], msg: `${coin} is listed twice`, input: coin })
    const base = deps.store.bars(coin)!
    const bars = req.timeframe === '1H' ? base : resample(base, req.timeframe)
    if (bars.n < 2) problems.push({ loc: ['body', 'coins', i], msg: `${coin} has fewer than 2 ${req.timeframe} candles`, input: coin })
  })
  if (problems.length) throw new InvalidRequest(problems)

  const cfg: BotConfig = {
    ...resolved,
    timeframe: req.timeframe,
    leverage: req.leverage,
    position_size_usd: req.position_size_usd,
    coins,
    avoid_hours: [...new Set(req.avoid_hours)].sort((a, b) => a - b),
    exchange: req.exchange,
    live: false,
    state_file: 'state.json',
    history_candles: 1000,
  }

  // explicit coins: no point-in-time universe (withUniverse keeps the run on them)
  const run = await deps.runs.run(deps.runs.withUniverse(backtestSpec(backtestBody(cfg)), {}), { statistics: false, noCache })
  const m = run.assembled.metrics
  const body = run.assembled.body
  const figures: BacktestFigures = {
    data_range: body.data_range,
    coins_used: body.coins_used,
    total_trades: m.total_trades,
    win_rate: m.win_rate,
    profit_factor: m.profit_factor,
    total_return_pct: m.total_return_pct,
    max_drawdown_pct: m.max_drawdown_pct,
    total_fees_pct: m.total_fees_pct,
    total_funding_pct: m.total_funding_pct,
    tp_count: m.tp_count,
    sl_count: m.sl_count,
    timeout_count: m.timeout_count,
    trailing_count: m.trailing_count,
    signal_count: m.signal_count,
    liquidation_count: m.liquidation_count,
    end_of_data_count: m.end_of_data_count,
  }

  const root = `perpsim-bot-${sanitizeId(cfg.strategy_id ?? cfg.name)}`
  const pack: PackInput = {
    root,
    cfg,
    description,
    figures,
    selftestCandles: req.selftest_candles,
    generatedAtMs: deps.clock.now(),
    serviceVersion: VERSION,
    ccxtVersion: runtime.ccxtVersion,
    botMjs: runtime.botMjs,
  }
  const zip = await deps.runs.botZip(pack)
  return { fileName: `${root}.zip`, zip }
}
