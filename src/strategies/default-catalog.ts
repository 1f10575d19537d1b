/** The catalog every caller gets unless it passes its own: the indicator registry. */
import { INDICATORS, validateParams } from '../indicators/registry'
import type { IndicatorCatalog } from './catalog'

export const DEFAULT_CATALOG: IndicatorCatalog = {
  defs: INDICATORS,
  validateParams: (id, params) => validateParams(id, params as Record<string, number>),
}
