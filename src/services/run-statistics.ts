/**
 * The statistical fields of a run (edge p-value, deflated Sharpe, Monte Carlo, bootstrap
 * CIs, walk-forward, alpha, regimes, grade). `statisticsFields(null)` is the empty set
 * an unexecuted run reports.
 */
export interface StatisticsFields {
  edge_p_value: number | null
  walk_forward_consistency: number | null
  walk_forward_details: string
  deflated_sharpe: unknown
  dsr_haircut_pct: number | null
  mc_p_value: number | null
  mc_percentile: number | null
  jensens_alpha: number | null
  profit_factor_ci: unknown
  sharpe_ci: unknown
  regime_performance: unknown
  strategy_grade: string
  grade_details: string
}

export function statisticsFields(s: Partial<StatisticsFields> | null): StatisticsFields {
  return {
    edge_p_value: null,
    walk_forward_consistency: null,
    walk_forward_details: '',
    deflated_sharpe: null,
    dsr_haircut_pct: null,
    mc_p_value: null,
    mc_percentile: null,
    jensens_alpha: null,
    profit_factor_ci: null,
    sharpe_ci: null,
    regime_performance: null,
    strategy_grade: '',
    grade_details: '',
    ...s,
  }
}
