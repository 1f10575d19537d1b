/**
 * The versions a day file carries. A published file is never rewritten: a change of its
 * layout or of what its numbers mean gets a new SCHEMA_VERSION, new files are written in
 * it, and the readers (src/modules/rankings/service.ts, src/mail/weekly.ts) read every
 * version ever published (docs/rankings.md "Day-file versions").
 */
import { VERSION } from '../../version'

/** What produced a day file's figures: the service version's engine (trade model, metrics). */
export const ENGINE_VERSION = `perpsim-engine-${VERSION}`

/**
 * The layout of the day file (and of the /rankings/daily answer).
 * - `rankings-1`: rows carry `rank` (overall) and `previous_rank`; rank_change = previous
 *   overall rank − overall rank; `generated_at` with milliseconds.
 * - `rankings-2`: rows also carry `eligible_rank` (rank among the rows with at least
 *   MIN_TRADES trades; null for a held-back row) and `previous_eligible_rank` instead of
 *   `previous_rank`; rank_change compares eligible ranks; `generated_at` in whole seconds.
 *   Files of rules v2 on (RULES_VERSION, configurations.ts) also carry each row's `ruined_at`.
 */
export const SCHEMA_VERSION = 'rankings-2'

/** Does the file store eligible ranks and eligible rank changes (rankings-2 on)? */
export const storesEligibleRanks = (schemaVersion: string): boolean => schemaVersion !== 'rankings-1'
