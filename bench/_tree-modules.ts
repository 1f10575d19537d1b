/**
 * What a bench needs to build the app from another checkout's src/ (an A/B's other side,
 * or bench/_thread-profile.ts's marked copy), typed as this tree's modules.
 */
import { join } from 'node:path'

export async function treeModules(src: string) {
  return {
    buildApp: (await import(join(src, 'app.ts'))).buildApp as typeof import('../src/app').buildApp,
    systemClock: (await import(join(src, 'clock.ts'))).systemClock as typeof import('../src/clock').systemClock,
    composeDeps: (await import(join(src, 'compose.ts'))).composeDeps as typeof import('../src/compose').composeDeps,
    loadConfig: (await import(join(src, 'config.ts'))).loadConfig as typeof import('../src/config').loadConfig,
    openDb: (await import(join(src, 'db.ts'))).openDb as typeof import('../src/db').openDb,
    createLogger: (await import(join(src, 'log.ts'))).createLogger as typeof import('../src/log').createLogger,
    CandleStore: (await import(join(src, 'market/candle-store.ts'))).CandleStore as typeof import('../src/market/candle-store').CandleStore,
    transports: (await import(join(src, 'runs/transport.ts'))) as typeof import('../src/runs/transport'),
  }
}
