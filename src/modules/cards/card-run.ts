/**
 * From card settings to the run they describe: a registry strategy (the same RunSpec as
 * POST /simulate with these settings, so both share one cached result) or a builder
 * preset (the same RunSpec as POST /backtest with the preset's tree).
 */
import type { CardSettings } from '../../cards/card-figures'
import type { Direction } from '../../engine/types'
import { InvalidRequest, UnknownStrategy } from '../../runs/errors'
import type { RunSpec } from '../../runs/spec'
import { getPreset, listPresets } from '../../strategies/presets'
import { getStrategy, listStrategies, type StrategyDef } from '../../strategies/registry'
import type { StrategyStatus } from '../../strategies/status'
import { backtestSpec } from '../../runs/backtest-spec'
import { koreanName } from '../../records/rankings/names-ko'
import { simulateSpec } from '../../runs/simulate-spec'

/** An id that is neither a registry strategy (nor a family of one) nor a builder preset. */
export const unknownCardStrategy = (id: string) => new UnknownStrategy(id, [...listStrategies().map(s => s.id), ...listPresets().map(p => p.id)])

/** `dir` names the other side than the id does (bb-squeeze-short with dir=long): a 422 on dir, never a silent switch. */
function directionConflict(id: string, own: Direction, requested: Direction): InvalidRequest {
  return new InvalidRequest([
    { loc: ['query', 'dir'], msg: `dir '${requested}' contradicts '${id}', a ${own} strategy; ask for the ${requested} side by its own id or by the family id without direction`, input: requested },
  ])
}

export interface CardRun {
  /** the id the card was asked for, normalised (family id + dir resolved) */
  id: string
  kind: 'strategy' | 'preset'
  name: string
  nameKo: string | null
  direction: Direction
  status: StrategyStatus | 'preset'
  settings: CardSettings
  spec: RunSpec
}

/** Fee in percent → the engine's fraction, rounded so 0.05 gives exactly the 0.0005 /simulate uses. */
const feeFracOf = (feePct: number) => Number((feePct / 100).toPrecision(12))

function registryStrategy(id: string, dir: Direction | undefined, defaultDir: Direction): StrategyDef | null {
  const exact = getStrategy(id)
  if (exact) {
    if (dir !== undefined && dir !== exact.direction) throw directionConflict(id, exact.direction, dir)
    return exact
  }
  // a family id without its side (`bb-squeeze`): the side comes from dir
  return getStrategy(`${id}-${dir ?? defaultDir}`) ?? null
}

export function cardRun(id: string, dir: Direction | undefined, defaultDir: Direction, settings: CardSettings): CardRun {
  const s = registryStrategy(id, dir, defaultDir)
  const window = { start_date: settings.from, end_date: settings.to }
  if (s) {
    const spec = simulateSpec({
      strategy: s.id,
      sl_pct: settings.slPct,
      tp_pct: settings.tpPct,
      ...(settings.maxBars === null ? {} : { max_bars: settings.maxBars }),
      market_type: 'futures',
      top_n: settings.topN,
      symbols: null,
      timeframe: settings.timeframe,
      ...window,
      leverage: settings.leverage,
      fee_pct: feeFracOf(settings.feePct),
      per_coin_usd: 60,
      max_concurrent_positions: 100,
      compounding: false,
      include_stablecoins: false,
    })
    return { id: s.id, kind: 'strategy', name: s.name, nameKo: koreanName(s.id, s.direction), direction: s.direction, status: s.status, settings, spec }
  }
  const p = getPreset(id)
  if (!p) throw unknownCardStrategy(id)
  if (dir !== undefined && dir !== p.direction) throw directionConflict(id, p.direction, dir)
  const spec = backtestSpec({
    name: p.name,
    direction: p.direction,
    indicators: p.indicators as Record<string, Record<string, number>>,
    entry: p.entry as unknown as Record<string, unknown>,
    exit_conditions: null,
    avoid_hours: [],
    avoid_months: null,
    min_vol_regime: null,
    sl_pct: settings.slPct,
    tp_pct: settings.tpPct,
    tp_source: 'custom_pct',
    trailing_pct: null,
    max_bars: settings.maxBars ?? p.max_bars,
    top_n: settings.topN,
    symbols: null,
    include_stablecoins: false,
    symbol: null,
    ...window,
    timeframe: settings.timeframe,
    per_coin_usd: 60,
    leverage: settings.leverage,
    max_concurrent_positions: 100,
    compounding: false,
    stop_at_ruin: true,
  })
  return { id: p.id, kind: 'preset', name: p.name, nameKo: null, direction: p.direction, status: 'preset', settings, spec: { ...spec, feeFrac: feeFracOf(settings.feePct) } }
}
