/**
 * The bodies of the HTTP layer's own refusals, as /openapi.json publishes them on every
 * operation they can answer (src/http/openapi.ts): 422 from the validators (errors.ts),
 * 404 for something unknown, 429 from the rate limit (rate-limit.ts), 503 from load
 * shedding and a full run queue (load-shedding.ts, errors.ts). Their producers build
 * them; tests/openapi-document.test.ts checks real answers against these schemas.
 */
import { Type } from '@sinclair/typebox'

export const ValidationErrorBody = Type.Object(
  {
    detail: Type.Array(
      Type.Object({
        type: Type.String({ description: 'the rule broken, e.g. missing, range, int_type, pattern, enum, value_error, json_invalid' }),
        loc: Type.Array(Type.Union([Type.String(), Type.Integer()]), { description: 'where: body, query, path or header, then the field path' }),
        msg: Type.String({ description: 'the rule in words, e.g. "Input should be an integer from 1 to 535"' }),
        input: Type.Optional(Type.Unknown({ description: 'the value as sent (long values cut)' })),
      }),
      { minItems: 1 },
    ),
  },
  { description: 'one entry per field that broke a rule' },
)

export const NotFoundBody = Type.Object({ detail: Type.String({ description: 'what was not found, and where to look' }) })

export const RateLimitedBody = Type.Object({
  detail: Type.String(),
  limit_per_minute: Type.Integer({ description: 'requests per minute per client for this kind of endpoint' }),
  retry_after_seconds: Type.Integer({ minimum: 1, description: 'the same as the Retry-After header' }),
})

export const OverloadedBody = Type.Object({
  detail: Type.String(),
  retry_after_seconds: Type.Integer({ minimum: 1, description: 'the same as the Retry-After header' }),
})
