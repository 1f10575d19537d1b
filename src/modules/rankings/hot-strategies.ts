/**
 * GET /hot-strategies: every registry strategy at its default settings over the last 30
 * UTC days up to the last completed candle on the top 50, each exactly a POST /simulate
 * answer (the published body), computed at most once an hour of the injected clock.
 */
import type { Clock } from '../../clock'
import type { RunService } from '../../runs/service'
import { simulateSpec, type SimulateFields } from '../../runs/simulate-spec'
import { listStrategies } from '../../strategies/registry'
import { COST_FIELDS, MIN_TRADES } from '../../records/rankings/configurations'
import { DAY_MS, HOUR_MS, isoDay, isoInstant } from '../../time'

export const HOT_CACHE_MS = HOUR_MS
export const HOT_TOP_N = 50
export const HOT_DAYS = 30


export interface HotStrategies {
  strategies: {
    strategy_id: string
    strategy_name: string
    direction: string
    status: string
    period: string
    profit_factor: number
    profit_factor_capped: boolean
    win_rate: number
    total_trades: number
    total_return_pct: number
    request: { method: 'POST'; path: '/simulate'; body: SimulateFields }
  }[]
  computed_at: string
  period: string
  start_date: string
  end_date: string
  top_n: number
  min_trades: number
  cache_seconds: number
  next_refresh_at: string
}

export class HotStrategiesService {
  private cached: { atMs: number; value: HotStrategies } | null = null
  private inFlight: Promise<HotStrategies> | null = null

  constructor(private readonly deps: { clock: Clock; runs: RunService }) {}

  get(): Promise<HotStrategies> {
    const now = this.deps.clock.now()
    if (this.cached && now - this.cached.atMs < HOT_CACHE_MS) return Promise.resolve(this.cached.value)
    this.inFlight ??= this.compute(now)
      .then(value => {
        this.cached = { atMs: now, value }
        return value
      })
      .finally(() => (this.inFlight = null))
    return this.inFlight
  }

  private async compute(now: number): Promise<HotStrategies> {
    const today = Math.floor(now / DAY_MS) * DAY_MS
    const window = { start_date: isoDay(today - HOT_DAYS * DAY_MS), end_date: isoDay(today) }
    const strategies = listStrategies()
    const bodies: SimulateFields[] = strategies.map(s => ({
      strategy: s.id,
      sl_pct: s.sl_pct,
      tp_pct: s.tp_pct,
      max_bars: s.max_bars,
      timeframe: '1H',
      ...window,
      top_n: HOT_TOP_N,
      symbols: null,
      ...COST_FIELDS,
    }))
    // the universe /simulate would decide for the body, written into it so the request re-runs the same way later
    const specs = bodies.map(b => {
      const spec = this.deps.runs.withUniverse(simulateSpec(b), b)
      b.universe = spec.universe === 'point_in_time' ? 'point_in_time' : 'current'
      return spec
    })
    const { runs: results } = await this.deps.runs.batch(specs)
    const rows = strategies
      .map((s, i) => ({ s, m: results[i].metrics, body: bodies[i] }))
      .filter(x => x.m.total_trades >= MIN_TRADES)
      .sort((a, b) => b.m.profit_factor - a.m.profit_factor || b.m.win_rate - a.m.win_rate || b.m.total_trades - a.m.total_trades || (a.s.id < b.s.id ? -1 : 1))
    return {
      strategies: rows.map(({ s, m, body }) => ({
        strategy_id: s.id,
        strategy_name: s.name,
        direction: s.direction,
        status: s.status,
        period: `${HOT_DAYS}d`,
        profit_factor: m.profit_factor,
        profit_factor_capped: m.profit_factor_capped,
        win_rate: m.win_rate,
        total_trades: m.total_trades,
        total_return_pct: m.total_return_pct,
        request: { method: 'POST' as const, path: '/simulate' as const, body },
      })),
      computed_at: isoInstant(now),
      period: `${HOT_DAYS}d`,
      ...window,
      top_n: HOT_TOP_N,
      min_trades: MIN_TRADES,
      cache_seconds: HOT_CACHE_MS / 1000,
      next_refresh_at: isoInstant(now + HOT_CACHE_MS),
    }
  }
}
