/**
 * The domain errors services and the run pipeline throw. They name what went wrong in the
 * domain's words; src/http/errors.ts alone turns them into status codes and bodies
 * (422 InvalidRequest, 404 NotFound and its kinds, 400 OverLimit, 503 Overloaded and WorkersUnavailable,
 * 429/503 TooManyStreams).
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

/**
 * What the request names does not exist (a preset, a ranking day, a paper cycle, a leaf):
 * the one "not found" of the service, a 404 whose detail is the message. The kinds below
 * are NotFounds that carry what they name.
 */
export class NotFound extends Error {}

/** A strategy id that is not in the registry. */
export class UnknownStrategy extends NotFound {
  constructor(readonly id: string, validIds: readonly string[]) {
    super(`Unknown strategy '${id}'. Valid ids: ${validIds.join(', ')}`)
  }
}

/**
 * Symbols of a request that the store does not hold: a 404 on every route that takes a
 * symbol (docs/api.md "Errors"), named as the request spelled them where the route knows it.
 */
export class UnknownSymbols extends NotFound {
  constructor(readonly symbols: string[]) {
    super(`Unknown symbol${symbols.length === 1 ? '' : 's'} ${symbols.map(s => `'${s}'`).join(', ')}: see GET /coins`)
  }

  /** The same symbols as the request spelled them (the run pipeline upper-cases symbols). */
  spelledAs(requested: readonly string[]): UnknownSymbols {
    return new UnknownSymbols(this.symbols.map(s => requested.find(r => r.toUpperCase() === s) ?? s))
  }
}

/** For a promise's catch: an UnknownSymbols named as the request spelled them; any other error as it is. */
export const asSpelled =
  (requested: readonly string[]) =>
  (e: unknown): never => {
    throw e instanceof UnknownSymbols ? e.spelledAs(requested) : e
  }

/** A result hash no run produced (or whose stored request is gone). */
export class UnknownResult extends NotFound {
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

/**
 * The queue's workers cannot run a task (REDIS_URL, docs/operations.md "A fleet"): none is
 * connected, none holds the store or engine the task was cut for (the reason names them), or
 * the task did not finish within QUEUE_TASK_DEADLINE_MS. The run fails (503 with the reason
 * and Retry-After) instead of waiting for ever.
 */
export class WorkersUnavailable extends Error {
  constructor(readonly reason: string, readonly retryAfterSec: number) {
    super(reason)
  }
}

/**
 * No further event stream (GET /events) can be opened: the client has `limit` open already
 * (`scope` 'client', a 429), the service has (`scope` 'service', a 503), or the service is
 * stopping (`scope` 'stopping', a 503).
 */
export class TooManyStreams extends Error {
  constructor(readonly scope: 'client' | 'service' | 'stopping', readonly limit: number, readonly retryAfterSec: number) {
    super(
      scope === 'client'
        ? `at most ${limit} open event streams per client`
        : scope === 'service'
          ? `the service has its ${limit} event streams open`
          : 'the service is stopping and opens no event stream',
    )
  }
}

/**
 * No further research run (a sweep or a walk-forward run) can start: the client has `limit`
 * queued or running (`scope` 'client', a 429), or the service has (`scope` 'service', a 503).
 */
export class TooManyResearchRuns extends Error {
  constructor(readonly scope: 'client' | 'service', readonly limit: number, readonly retryAfterSec: number) {
    super(scope === 'client' ? `at most ${limit} sweeps or walk-forward runs queued or running per client` : `the service runs at most ${limit} sweeps or walk-forward runs at once`)
  }
}
