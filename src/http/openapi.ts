/** GET /openapi.json: OpenAPI 3.1.0 of the public routes, no documentation UI. */
import { openapi } from '@elysiajs/openapi'
import { VERSION } from '../version'

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
