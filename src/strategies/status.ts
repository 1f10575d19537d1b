/**
 * What a strategy's status promises. One table, published as it is (GET /strategies
 * labels, the daily ranking's research_status_definitions, docs/strategies.md); a
 * status is assigned only when the strategy meets the criteria written here.
 */

export type StrategyStatus = 'verified' | 'testing' | 'research'

export interface StatusDefinition {
  label: string
  /** one sentence: what a reader may conclude from the label */
  meaning: string
  /** every condition a strategy meets to carry the label */
  criteria: string[]
}

/** The measurement the criteria refer to; bench/strategies.ts --oos runs it. */
export const STATUS_MEASUREMENT = {
  data: 'Binance USDT-M perpetuals, 1h candles, 28 large coins, 2020-10-23 to 2024-06-16 (31,973 bars each)',
  split: 'per coin, the first 70% of bars are in-sample and the last 30% out-of-sample; indicators warm up on all earlier bars',
  costs: 'the perpsim trade model (engine/simulate-coin): taker fee 0.05% per side, real funding where the data has it and 0.01% per 8h otherwise, leverage 1',
  settings: "the strategy's own default sl_pct, tp_pct and max_bars",
  oosFrac: 0.3,
  minOosTrades: 200,
  minOosProfitFactor: 1.15,
  minIsProfitFactor: 1.0,
  minOosPositiveCoinShare: 0.5,
  minIsTrades: 100,
} as const

const M = STATUS_MEASUREMENT

export const STATUS_DEFINITIONS: Readonly<Record<StrategyStatus, StatusDefinition>> = {
  verified: {
    label: 'Verified',
    meaning:
      'Its rules and default settings were fixed before an out-of-sample test on real candles, and it stayed profitable after costs there. Past results; no promise about the future.',
    criteria: [
      `Rules and default parameters fixed before the out-of-sample bars were looked at; any later change resets the status to testing.`,
      `Measured on ${M.data}; ${M.split}.`,
      `Simulated with ${M.costs}, at ${M.settings}.`,
      `Out-of-sample: at least ${M.minOosTrades} trades and profit factor at least ${M.minOosProfitFactor}.`,
      `In-sample profit factor at least ${M.minIsProfitFactor}.`,
      `Out-of-sample net return positive on at least ${M.minOosPositiveCoinShare * 100}% of the coins that traded.`,
      'The measurement (date, command, figures) is written in docs/strategies.md.',
    ],
  },
  testing: {
    label: 'Testing',
    meaning: 'Measured and not refuted in-sample, but it has not met every out-of-sample criterion of verified.',
    criteria: [
      `Measured the same way as verified (${M.data}).`,
      `In-sample: at least ${M.minIsTrades} trades and profit factor at least ${M.minIsProfitFactor}.`,
      'Out-of-sample figures below at least one threshold of verified, or not measured yet.',
    ],
  },
  research: {
    label: 'Research',
    meaning: 'An idea under study: no performance claim of any kind.',
    criteria: [
      'Any strategy that is not verified or testing: not measured yet, too few trades, or in-sample profit factor below the testing threshold.',
    ],
  },
}

export const STATUSES = ['verified', 'testing', 'research'] as const satisfies readonly StrategyStatus[]
