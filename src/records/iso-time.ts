/** The time forms of published records (signals, scored signals, paper trades, day roots). */

/** ISO 8601, UTC, without zone (the contract's signal_time form) */
export const isoNoZone = (ms: number) => new Date(ms).toISOString().slice(0, 19)
/** ISO 8601 with Z, as /simulate/coin writes trade times */
export const isoZ = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z')
