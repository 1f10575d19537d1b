/**
 * The error bodies of every route, as schemas: `Detail` is `{detail: string}` (404 and the
 * other refusals whose answer is one sentence), `ValidationErrors` the 422 list
 * `{detail: [{type, loc, msg, input}]}` that src/http/errors.ts writes. Controllers name
 * them in their `response` maps and /openapi.json describes them from here; services never
 * import this file (they throw the domain errors of src/runs/errors.ts).
 */
import { t } from 'elysia'

/** `{detail: "..."}`: a 404 (NotFound and its kinds), 401/403 for the admin key, 503 with Retry-After. */
export const Detail = t.Object({ detail: t.String() }, { title: 'Detail' })

/** One entry of a 422: where (`loc`), which rule (`type`, `msg`) and the value as sent (`input`, bounded). */
export const ValidationErrorItem = t.Object(
  {
    type: t.String({ description: 'the rule broken: missing, int_type, range, enum, bool_parsing, object_type, value_error, …' }),
    loc: t.Array(t.Union([t.String(), t.Integer()]), { description: "where: ['body', 'entry'], ['query', 'limit'], ['path', 'symbol']" }),
    msg: t.String(),
    input: t.Optional(t.Unknown({ description: 'the value as sent (long ones cut, large ones summarised)' })),
  },
  { title: 'ValidationErrorItem' },
)

/** The 422 body: every problem found, as FastAPI writes it. */
export const ValidationErrors = t.Object({ detail: t.Array(ValidationErrorItem) }, { title: 'ValidationErrors' })
