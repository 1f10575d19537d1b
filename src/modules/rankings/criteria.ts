/**
 * GET /rankings/criteria: the page `criteria_url` points to. It states the ranking rules
 * from the same constants the job uses, so the page cannot drift from the computation.
 */
import { PROFIT_FACTOR_CAP } from '../../engine/metrics-breakdown'
import { listStrategies } from '../../strategies/registry'
import { configurations, COSTS, GROUP_TOP_N, GROUPS, MIN_TRADES, PERIOD_DAYS, PERIODS, PRESETS, RULES_VERSION, SCHEMA_VERSION, STREAK_TOP, WEEKLY_DAYS, WEEKLY_MIN_DAYS } from '../../records/rankings/configurations'

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

export function criteriaPage(): string {
  const strategies = listStrategies()
  const presetRows = PRESETS.map(
    p => `<tr><td>${p.timeframe}</td><td>${p.presets.map(x => (x === 'default' ? "the strategy's default (GET /strategies)" : `${x.sl_pct} / ${x.tp_pct} / ${x.max_bars}`)).join('<br>')}</td></tr>`,
  ).join('')
  const groupRows = GROUPS.map(g => `<tr><td>${g}</td><td>${GROUP_TOP_N[g] === null ? 'BTCUSDT alone (/simulate body: "symbols": ["BTCUSDT"])' : `the first ${GROUP_TOP_N[g]} coins of the eligible universe by market-cap rank, the rule of /simulate's top_n`}</td></tr>`).join('')
  const periodRows = PERIODS.map(p => `<tr><td>${p}</td><td>the ${PERIOD_DAYS[p]} UTC days before the ranking date (start_date = date − ${PERIOD_DAYS[p]} days, end_date = date − 1 day; the ranking date itself is excluded)</td></tr>`).join('')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>perpsim daily ranking criteria (${RULES_VERSION})</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:left;vertical-align:top}</style></head>
<body>
<h1>Daily ranking criteria</h1>
<p>Rules version <code>${RULES_VERSION}</code> (the prefix of every configuration id; it changes only when these rules change). Response and day-file schema <code>${SCHEMA_VERSION}</code>. Computed daily at 00:30 UTC.</p>
<h2>Population</h2>
<p>One row per configuration: each of the ${strategies.length} registry strategies (GET /strategies; the direction is part of the id) × timeframe × SL% / TP% / max-bars preset, ${configurations().length} configurations in all. Ids read <code>${RULES_VERSION}:&lt;strategy&gt;:&lt;timeframe&gt;:&lt;sl&gt;-&lt;tp&gt;-&lt;max_bars&gt;</code>. A preset equal to the strategy's default counts once.</p>
<table><tr><th>Timeframe</th><th>Presets (SL% / TP% / max bars)</th></tr>${presetRows}</table>
<h2>Periods</h2><table>${periodRows}</table>
<h2>Groups</h2><table>${groupRows}</table>
<h2>Costs</h2>
<p>Exactly POST /simulate's: ${esc(COSTS.market_type)}, taker fee ${COSTS.fee_pct * 100}% per side on notional, market fills paying half the estimated spread plus square-root impact (slippage ${esc(COSTS.slippage)}, impact_k ${COSTS.impact_k}), market take profits, Binance's margin brackets with a ${COSTS.liquidation_fee_pct}% liquidation fee (margin ${esc(COSTS.margin)}; docs/metrics.md §1), ${esc(COSTS.funding)}, leverage ${COSTS.leverage}, ${COSTS.per_coin_usd} USD per position, no compounding, at most ${COSTS.max_concurrent_positions} open positions, no trade once the equity has reached zero (stop_at_ruin), stablecoins excluded. Every row equals the /simulate answer to the body <code>how_to_reverify</code> publishes.</p>
<h2>Order</h2>
<p>Zero-trade rows are dropped. The rest are sorted by profit factor, then win rate, then total trades (all descending), then configuration id (ascending): a total order, so the same figures always give the same ranks. That order gives each row its <code>overall_rank</code> (the day file's <code>rank</code>); the <code>rank</code> shown in top3, worst3, weekly_best3, verified_in_ranking and the headline numbers the rows with at least ${MIN_TRADES} trades alone, 1, 2, 3 for the top (worst3 lists the worst first).</p>
<h2>Caps and minimum trades</h2>
<p>A profit factor with no losing trade (or above ${PROFIT_FACTOR_CAP}) is shown as ${PROFIT_FACTOR_CAP} and flagged <code>pf_capped</code>. Rows with fewer than ${MIN_TRADES} trades are held back: they keep their overall rank in the day file but are not in the ranked list (top3, worst3, weekly_best3, verified_in_ranking, the headline); <code>held_back</code> lists them with their figures and why, <code>held_back_count</code> says how many.</p>
<h2>Day-over-day fields</h2>
<p><code>rank_change</code> = yesterday's rank − today's, both among the eligible rows (null when the configuration was not in the ranked list on the previous calendar day or is not today, or that day has no file). <code>streak</code> = consecutive ranking days ending today on which the configuration was among the ${STREAK_TOP} best rows with at least ${MIN_TRADES} trades (the rows top3 is drawn from; 0 when not today; a day without a file breaks it). <code>weekly_best3</code>: configurations ranked with at least ${MIN_TRADES} trades on at least ${WEEKLY_MIN_DAYS} of the last ${WEEKLY_DAYS} days (today included, days with a file), by mean profit factor, then mean win rate, then id; <code>days_ranked</code> counts those days.</p>
<h2>Records</h2>
<p>Each ranking date is published once as a day file (canonical JSON of every period × group) with its sha256; the database refuses to update or delete it. GET /rankings/files/YYYYMMDD returns its exact bytes.</p>
</body></html>
`
}
