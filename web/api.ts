/**
 * The page's only way to the server: the public HTTP API, typed with the server's own
 * schemas (`typeof X.static`, type-only imports: nothing of the server is bundled).
 */
import type { BacktestRequest, BacktestResponse } from '../src/modules/backtest/model'
import type { BuilderIndicatorList, Preset, PresetList } from '../src/modules/builder/model'
import type { CoinSimRequest, CoinSimResponse, CompareRequest, CompareResponse, SimulateRequest, SimulateResponse } from '../src/modules/simulate/model'
import type { OptimizeRequest, OptimizeResponse, ValidateRequest, ValidateResponse } from '../src/modules/research/model'
import type { OhlcvResponse } from '../src/modules/ohlcv/model'
import type { StrategyList } from '../src/modules/strategies/model'
import type { CoinInfo } from '../src/modules/coins/model'
import type { HistoryResponse, ScoredResponse } from '../src/modules/signals/model'
import type { PaperState, PerformancePublic } from '../src/modules/paper/model'
import type { RegimeResponse } from '../src/modules/regime/model'
import type { MerkleDay, MerkleLeaves, TrustMetrics as TrustMetricsSchema } from '../src/modules/trust/model'
import type { DailyRankingResponse, HotStrategiesResponse, RankingRow as RankingRowSchema } from '../src/modules/rankings/model'
import type { ResearchAccepted, SweepRequest, SweepResponse, SweepTrial, SWEEP_OBJECTIVES, WalkForwardRequest, WalkForwardResponse } from '../src/modules/sweeps/model'

export type SimulateBody = Partial<typeof SimulateRequest.static> & { strategy: string }
export type BacktestBody = Partial<typeof BacktestRequest.static> & { entry: (typeof BacktestRequest.static)['entry'] }
export type BacktestResult = typeof BacktestResponse.static
export type SimulateResult = typeof SimulateResponse.static
/** what the results view draws: a /simulate or a /backtest body */
export type RunResult = BacktestResult & Partial<Pick<SimulateResult, 'strategy' | 'strategy_name' | 'status'>>
export type Trade = BacktestResult['trades'][number]
export type EquityPoint = BacktestResult['equity_curve'][number]
export type Strategy = (typeof StrategyList.static)[number]
export type BuilderIndicator = (typeof BuilderIndicatorList.static)[number]
export type PresetItem = (typeof PresetList.static)[number]
export type PresetDetail = typeof Preset.static
export type CoinSimBody = Partial<typeof CoinSimRequest.static> & { symbol: string }
export type CoinSimResult = typeof CoinSimResponse.static
export type CompareBody = Partial<typeof CompareRequest.static>
export type CompareResult = typeof CompareResponse.static
export type ValidateBody = Partial<typeof ValidateRequest.static>
export type ValidateResult = typeof ValidateResponse.static
export type OptimizeBody = Partial<typeof OptimizeRequest.static> & Pick<typeof OptimizeRequest.static, 'sl_values' | 'tp_values'>
export type OptimizeResult = typeof OptimizeResponse.static
export type Ohlcv = typeof OhlcvResponse.static
export type Coin = typeof CoinInfo.static
export type RankingsResult = typeof DailyRankingResponse.static
export type RankingRow = typeof RankingRowSchema.static
export type HotStrategies = typeof HotStrategiesResponse.static
export type Paper = typeof PaperState.static
export type PaperPosition = Paper['open_positions'][number]
/** /performance/public, its `regime` read as /regime's body (the route's schema leaves it open) */
export type Performance = Omit<typeof PerformancePublic.static, 'regime'> & { regime: typeof RegimeResponse.static }
export type TrustMetrics = typeof TrustMetricsSchema.static
export type MerkleDayResult = typeof MerkleDay.static
export type MerkleLeavesResult = typeof MerkleLeaves.static
export interface SignalsResult {
  recent: typeof HistoryResponse.static
  scored: typeof ScoredResponse.static
}

export type SweepObjective = (typeof SWEEP_OBJECTIVES)[number]
/** a sweep's body: the base run's /backtest fields (or a registry strategy) beside the search's (docs/api-research.md) */
export type SweepBody = Partial<typeof SweepRequest.static> & Pick<typeof SweepRequest.static, 'space'>
export type WalkForwardBody = Partial<typeof WalkForwardRequest.static> & Pick<typeof WalkForwardRequest.static, 'space' | 'in_sample_days' | 'out_of_sample_days' | 'folds'>
/** the search part both take */
export type SearchFields = Pick<SweepBody, 'space' | 'method' | 'seed' | 'budget' | 'objective' | 'min_trades'>
export type ResearchStart = typeof ResearchAccepted.static
export type SweepResult = typeof SweepResponse.static
export type SweepTrialItem = typeof SweepTrial.static
export type WalkForwardResult = typeof WalkForwardResponse.static

/** one problem of a 422, keyed by the request field it names */
export interface FieldProblem {
  field: string
  /** the whole place the server named, e.g. ['body', 'space', 1, 'path'] */
  loc?: unknown[]
  msg: string
  input: unknown
}

/** A non-2xx answer, read into what the page can say about it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly problems: FieldProblem[] = [],
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message)
  }
}

async function readError(res: Response): Promise<ApiError> {
  const text = await res.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {}
  const detail = typeof body === 'object' && body !== null && 'detail' in body ? (body as { detail: unknown }).detail : body
  const retryHeader = Number(res.headers.get('retry-after'))
  const retry = Number.isFinite(retryHeader) && retryHeader > 0 ? retryHeader : null
  if (res.status === 422 && Array.isArray(detail)) {
    const problems = detail.map((d: { loc?: unknown[]; msg?: string; input?: unknown }) => ({
      // loc is ['body', 'sl_pct'] (or deeper: ['body', 'symbols', 2]); the field is the first key after the part
      field: String(d.loc?.[1] ?? d.loc?.[0] ?? ''),
      loc: d.loc,
      msg: String(d.msg ?? ''),
      input: d.input,
    }))
    return new ApiError(422, problems.map(p => `${p.field}: ${p.msg}`).join('; '), problems)
  }
  if (typeof detail === 'object' && detail !== null) {
    const d = detail as Record<string, unknown>
    const msg = typeof d.error === 'string' ? d.error : typeof d.detail === 'string' ? d.detail : JSON.stringify(detail)
    const retryBody = typeof d.retry_after_seconds === 'number' ? d.retry_after_seconds : null
    return new ApiError(res.status, msg, [], retry ?? retryBody)
  }
  return new ApiError(res.status, typeof detail === 'string' && detail ? detail : `HTTP ${res.status}`, [], retry)
}

async function call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  let res: Response
  try {
    res = await fetch(path, {
      method,
      signal,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  } catch (err) {
    if (signal?.aborted) throw err
    throw new ApiError(0, err instanceof Error ? err.message : String(err))
  }
  if (!res.ok) throw await readError(res)
  return (await res.json()) as T
}

export const api = {
  strategies: () => call<Strategy[]>('GET', '/strategies'),
  builderIndicators: () => call<BuilderIndicator[]>('GET', '/builder/indicators'),
  presets: () => call<PresetItem[]>('GET', '/builder/presets'),
  preset: (id: string) => call<PresetDetail>('GET', `/builder/presets/${encodeURIComponent(id)}`),
  coins: () => call<Coin[]>('GET', '/coins'),
  simulate: (b: SimulateBody, s?: AbortSignal) => call<SimulateResult>('POST', '/simulate', b, s),
  backtest: (b: BacktestBody, s?: AbortSignal) => call<BacktestResult>('POST', '/backtest', b, s),
  simulateCoin: (b: CoinSimBody, s?: AbortSignal) => call<CoinSimResult>('POST', '/simulate/coin', b, s),
  compare: (b: CompareBody, s?: AbortSignal) => call<CompareResult>('POST', '/simulate/compare', b, s),
  validate: (b: ValidateBody, s?: AbortSignal) => call<ValidateResult>('POST', '/simulate/validate', b, s),
  optimize: (b: OptimizeBody, s?: AbortSignal) => call<OptimizeResult>('POST', '/simulate/optimize', b, s),
  rankings: (q: { period: string; group: string; date: string }, s?: AbortSignal) =>
    call<RankingsResult>('GET', `/rankings/daily?${new URLSearchParams({ period: q.period, group: q.group, ...(q.date ? { date: q.date } : {}) })}`, undefined, s),
  hotStrategies: (s?: AbortSignal) => call<HotStrategies>('GET', '/hot-strategies', undefined, s),
  signalsHistory: (hours: string, s?: AbortSignal) => call<SignalsResult['recent']>('GET', `/signals/history?hours=${encodeURIComponent(hours)}`, undefined, s),
  signalsScored: (days: string, s?: AbortSignal) => call<SignalsResult['scored']>('GET', `/signals/scored?days=${encodeURIComponent(days)}`, undefined, s),
  paper: (cycle: string, s?: AbortSignal) => call<Paper>('GET', `/paper-trading${cycle ? `?cycle=${encodeURIComponent(cycle)}` : ''}`, undefined, s),
  performance: (s?: AbortSignal) => call<Performance>('GET', '/performance/public', undefined, s),
  trustMetrics: (s?: AbortSignal) => call<TrustMetrics>('GET', '/trust/metrics', undefined, s),
  merkleDay: (day: string, s?: AbortSignal) => call<MerkleDayResult>('GET', `/trust/merkle/${encodeURIComponent(day)}`, undefined, s),
  merkleLeaves: (day: string, s?: AbortSignal) => call<MerkleLeavesResult>('GET', `/trust/merkle/${encodeURIComponent(day)}/leaves`, undefined, s),
  startSweep: (b: SweepBody, s?: AbortSignal) => call<ResearchStart>('POST', '/research/sweeps', b, s),
  sweep: (id: string, q: { sort?: 'trial' | 'objective'; limit?: number; offset?: number } = {}, s?: AbortSignal) =>
    call<SweepResult>('GET', `/research/sweeps/${encodeURIComponent(id)}?${new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)]))}`, undefined, s),
  cancelSweep: (id: string) => call<unknown>('DELETE', `/research/sweeps/${encodeURIComponent(id)}`),
  startWalkForward: (b: WalkForwardBody, s?: AbortSignal) => call<ResearchStart>('POST', '/research/walk-forward', b, s),
  walkForward: (id: string, s?: AbortSignal) => call<WalkForwardResult>('GET', `/research/walk-forward/${encodeURIComponent(id)}`, undefined, s),
  cancelWalkForward: (id: string) => call<unknown>('DELETE', `/research/walk-forward/${encodeURIComponent(id)}`),
  ohlcv: (symbol: string, timeframe: string, limit: number, offset = 0, s?: AbortSignal) =>
    call<Ohlcv>('GET', `/ohlcv/${encodeURIComponent(symbol)}?timeframe=${encodeURIComponent(timeframe)}&limit=${limit}&offset=${offset}`, undefined, s),
}
