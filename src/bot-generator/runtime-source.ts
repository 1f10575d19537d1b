/** The bundled bot and the ccxt version it is pinned to, inlined by Bun macros (bundle.macro.ts). */
import { botBundle, ccxtExchangeIds, ccxtVersion } from './bundle.macro' with { type: 'macro' }

export const BOT_MJS: string = botBundle()
export const CCXT_VERSION: string = ccxtVersion()
export const CCXT_EXCHANGES: readonly string[] = ccxtExchangeIds()
