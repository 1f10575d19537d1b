/**
 * Research statistics on backtest results: one import for the pure kernels in
 * statistics-*.ts. Formulas and references: docs/statistics.md.
 */
export { normalCdf, normalInv, studentTCdf, studentTSurvival, regularizedIncompleteBeta, logGamma, logBeta } from './statistics-distributions'
export { DAYS_PER_YEAR } from './calendar'
export { moments, mean, stdev, skewness, kurtosisRaw, sharpe, annualizedSharpe } from './statistics-moments'
export type { Moments } from './statistics-moments'
export { edgePValue } from './statistics-edge'
export {
  EULER_MASCHERONI, DSR_SENSITIVITY_TRIALS, DSR_CAVEAT, expectedMaxSharpe, sharpeEstimatorVariance,
  probabilisticSharpe, deflatedSharpe, dsrHaircutPct, trialSharpeVariance,
} from './statistics-sharpe'
export type { DeflatedSharpeInfo, DeflatedSharpeOptions } from './statistics-sharpe'
export { bootstrapCI, DEFAULT_BOOTSTRAP_SEED } from './statistics-bootstrap'
export type { MetricCI, BootstrapStatistic, BootstrapOptions } from './statistics-bootstrap'
export { walkForward } from './statistics-walk-forward'
export type { WalkForwardTrade, WalkForwardFold, WalkForwardResult } from './statistics-walk-forward'
export { jensensAlpha } from './statistics-alpha'
export type { JensensAlpha } from './statistics-alpha'
export { TREND_SMA_DAYS, VOL_WINDOW_DAYS, REGIME_DEFINITION, btcRegimeLabels, regimeAt, regimePerformance } from './statistics-regime'
export type { DayRegime, TrendRegime, VolRegime, RegimeTrade, RegimeStats, RegimePerformance } from './statistics-regime'
export { GRADE_CRITERIA, GRADE_BANDS, GRADE_MIN_TRADES_ABOVE_D, strategyGrade } from './statistics-grade'
export type { Grade, GradeInputs } from './statistics-grade'
export { DEFAULT_PERCENTILES, percentiles, percentileOfSorted, mcPValue, equityBands } from './statistics-monte-carlo'
export type { McPValue, EquityBands } from './statistics-monte-carlo'
export { PROFIT_FACTOR_CAP, summarizeTrades } from './statistics-trade-summary'
export type { TradeSummary } from './statistics-trade-summary'
