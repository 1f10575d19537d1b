import { Elysia } from 'elysia'
import { indicatorRegistry, strategyInfos } from '../../strategies/describe'
import { IndicatorRegistry, StrategyList } from './model'

/** GET /strategies and GET /indicators: the two registries, as data. */
export function strategiesModule() {
  const strategies = strategyInfos()
  const indicators = indicatorRegistry()
  return new Elysia({ name: 'strategies' })
    .get('/strategies', () => strategies, {
      response: StrategyList,
      detail: { tags: ['strategies'], summary: 'Named strategies with their condition trees, default settings and status' },
    })
    .get('/indicators', () => indicators, {
      response: IndicatorRegistry,
      detail: { tags: ['strategies'], summary: 'Indicator registry: fields usable in conditions and default params' },
    })
}
