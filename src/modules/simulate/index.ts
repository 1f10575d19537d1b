import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { noCache } from '../../http/cache-control'
import { checkedJson } from '../../http/checked-json'
import { Detail } from '../../model/shared'
import { CoinSimRequest, CoinSimResponse, CompareRequest, CompareResponse, CompareTooMany, SimulateRequest, SimulateResponse } from './model'
import { runCoinSim, runCompare, runSimulate } from './service'

/** POST /simulate, /simulate/coin, /simulate/compare: registry strategies through the one engine. */
export function simulateModule(deps: AppDeps) {
  return new Elysia({ name: 'simulate' })
    .post('/simulate', ({ body, headers }) => runSimulate(deps.runs, body, noCache(headers)), {
      body: SimulateRequest,
      // a run's ~700 KB body: checked and encoded by the route's hook (src/http/checked-json.ts)
      ...checkedJson({ 200: SimulateResponse, 404: Detail }),
      detail: { tags: ['simulation'], summary: 'Simulate a registry strategy over the top-N universe' },
    })
    .post('/simulate/coin', ({ body, headers }) => runCoinSim(deps.runs, body, noCache(headers)), {
      body: CoinSimRequest,
      response: { 200: CoinSimResponse, 404: Detail },
      detail: { tags: ['simulation'], summary: 'Simulate one coin' },
    })
    .post('/simulate/compare', ({ body, headers }) => runCompare(deps.runs, body, noCache(headers)), {
      body: CompareRequest,
      response: { 200: CompareResponse, 400: CompareTooMany },
      detail: { tags: ['simulation'], summary: 'Every registry strategy under the same SL/TP on the top coins (at most 5)' },
    })
}
