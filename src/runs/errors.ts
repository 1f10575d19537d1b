/**
 * The domain errors services and the run pipeline throw. They name what went wrong in the
 * domain's words; src/http/errors.ts alone turns them into status codes and bodies
 * (422 InvalidRequest, 404 Unknown…, 400 OverLimit, 503 Overloaded).
 */

/** One problem with a request, as the 422 detail list reports it. */
export interface Problem {
  /** where in the request: ['body', 'start_date'], ['body', 'trades', 3, 'exit_price'] */
  loc: (string | number)[]
  msg: string
  input: unknown
}

/** Input that passed the schema and is still wrong (cross-field rules, real dates, tree validation). */
export class InvalidRequest extends Error {
  constructor(readonly problems: Problem[]) {
    super(problems.map(p => `${p.loc.join('.')}: ${p.msg}`).join('; '))
  }
}

/** A strategy id that is not in the registry. */
export class UnknownStrategy extends Error {
  constructor(readonly id: string, validIds: readonly string[]) {
    super(`Unknown strategy '${id}'. Valid ids: ${validIds.join(', ')}`)
  }
}

/** Symbols of a request that the store does not hold. */
export class UnknownSymbols extends Error {
  constructor(readonly symbols: string[]) {
    super(symbols.length === 1 ? `Unknown symbol '${symbols[0]}': see GET /coins` : `unknown symbols: ${symbols.join(', ')}`)
  }
}

/** A result hash no run produced (or whose stored request is gone). */
export class UnknownResult extends Error {
  constructor(readonly hash: string) {
    super(`Unknown result hash '${hash}': run POST /backtest or /simulate first; their responses carry result_hash`)
  }
}

/** A request beyond a limit of the service, with the figures that explain it. */
export class OverLimit extends Error {
  constructor(message: string, readonly figures: Record<string, unknown>) {
    super(message)
  }
}

/** The run queue is full: the request is shed, to be retried after `retryAfterSec`. */
export class Overloaded extends Error {
  constructor(readonly retryAfterSec: number) {
    super('simulation queue is full')
  }
}
