import { RunResultBody } from '../../model/shared'

// the request body lives in the shared model: the research sweeps take it as their base
export { BacktestRequest } from '../../model/backtest-request'

/** the result body's schema lives below the modules, in the run pipeline, which builds it as its static type */
export const BacktestResponse = RunResultBody
