/**
 * Rules about combinations of fields that a per-field schema cannot state, the same on every
 * route that has the fields (docs/api.md "Field combinations"). Checked after schema
 * validation, so defaults are in place; a broken rule is a 422 naming the field.
 */
import { Elysia } from 'elysia'
import { unprocessable, type ValidationDetail } from './errors'

export function fieldCombinationProblems(body: unknown): ValidationDetail[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return []
  const b = body as Record<string, unknown>
  const out: ValidationDetail[] = []
  // spot trades carry no leverage: a spot run at 10x would silently run at 1x
  if (b.market_type === 'spot' && typeof b.leverage === 'number' && b.leverage !== 1)
    out.push({ type: 'value_error', loc: ['body', 'leverage'], msg: "market_type 'spot' has no leverage: leverage must be 1 (or left out)", input: b.leverage })
  // one universe per request: `symbol` would silently win over `symbols`
  if (b.symbol !== undefined && b.symbol !== null && b.symbols !== undefined && b.symbols !== null)
    out.push({ type: 'value_error', loc: ['body', 'symbols'], msg: 'give either `symbol` or `symbols`, not both', input: null })
  return out
}

export const fieldRules = new Elysia({ name: 'field-rules' }).onBeforeHandle({ as: 'global' }, ({ body }) => {
  const problems = fieldCombinationProblems(body)
  if (problems.length) throw unprocessable(problems)
})
