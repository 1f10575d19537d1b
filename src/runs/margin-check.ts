/**
 * The one check of a run's size against Binance's brackets (issue 25 §3): with margin
 * 'brackets' on futures, every coin of the run that has brackets must allow the run's
 * leverage at its position notional, as the exchange would: a notional above the largest
 * bracket, or a leverage above its bracket's maximum, is an InvalidRequest naming the
 * coin and the bracket, never a run priced at a position nobody could open.
 */
import { bracketOf } from '../engine/margin-brackets'
import { effectiveLeverage } from '../engine/types'
import type { MarginBracket } from '../market/types'
import { InvalidRequest, type Problem } from './errors'
import { executionOf, type RunSpec } from './spec'

/** at most this many coins are named in one 422 */
const MAX_NAMED = 10

export function checkMargin(spec: RunSpec, symbols: readonly string[], brackets: (symbol: string) => readonly MarginBracket[] | undefined): void {
  const ex = executionOf(spec)
  if (!ex || ex.margin !== 'brackets' || spec.marketType !== 'futures') return
  const lev = effectiveLeverage(spec)
  const problems: Problem[] = []
  let over = 0
  for (const s of symbols) {
    const bs = brackets(s)
    if (!bs || bs.length === 0) continue
    const b = bracketOf(bs, ex.notionalUsd)
    let msg: string | null = null
    if (b === null) msg = `${s}: a position of ${ex.notionalUsd} USD notional is above the largest bracket (bracket ${bs[bs.length - 1].bracket}, up to ${bs[bs.length - 1].capUsd} USD); lower per_coin_usd or leverage`
    else if (lev > b.maxLeverage) msg = `${s}: leverage ${lev} is above the maximum ${b.maxLeverage} of bracket ${b.bracket} (notional ${b.floorUsd}–${b.capUsd} USD), where a position of ${ex.notionalUsd} USD notional falls; lower leverage or per_coin_usd, or set margin 'flat'`
    if (msg === null) continue
    if (over++ < MAX_NAMED) problems.push({ loc: ['body', 'leverage'], msg, input: spec.leverage })
  }
  if (over > MAX_NAMED) problems.push({ loc: ['body', 'leverage'], msg: `and ${over - MAX_NAMED} more coins`, input: spec.leverage })
  if (problems.length) throw new InvalidRequest(problems)
}
