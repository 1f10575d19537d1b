/** GET /openapi.json: OpenAPI 3.1.0 of the public routes, no documentation UI. */
import { openapi } from '@elysiajs/openapi'
import { FormatRegistry } from '@sinclair/typebox'
import { VERSION } from '../version'

const FULL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/** RFC 3339 full-date (JSON Schema's `date` format): YYYY-MM-DD naming a real calendar day. */
export function isFullDate(value: string): boolean {
  const m = FULL_DATE.exec(value)
  if (!m) return false
  const y = +m[1], mo = +m[2], d = +m[3]
  if (mo < 1 || mo > 12 || d < 1 || d > DAYS_IN_MONTH[mo - 1]) return false
  return mo !== 2 || d < 29 || (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0))
}

// Importing @elysiajs/openapi replaces TypeBox's global `date` format with a check that
// builds a Zod schema on every call (about 30 µs); a run's response carries three daily
// curves of up to 731 points each, so response validation alone cost ~50–100 ms.
FormatRegistry.Set('date', value => isFullDate(value))

export function openapiPlugin() {
  return openapi({
    provider: null,
    specPath: '/openapi.json',
    openapiVersion: '3.1.0',
    documentation: {
      info: {
        title: 'perpsim',
        version: VERSION,
        description:
          'Backtests of crypto perpetual-futures strategies with realistic costs (fees, funding, leverage, liquidation), and the market data around them.',
      },
    },
    // internal and operator routes stay out of the public description
    exclude: { paths: [/^\/metrics/, /^\/trust\/real-track/, /^\/real-mode-checklist/, /^\/internal/] },
  })
}
