/**
 * POST /simulate/score-session: hand-made trades of a replay session scored by
 * engine/score-session.ts. Stores nothing. Times arrive as ISO 8601 strings (UTC when
 * they carry no zone) or Unix seconds, as elsewhere in the API.
 */
import { scoreSession, type SessionTrade } from '../../engine/score-session'
import { parseDay } from '../../time'
import { InvalidRequest } from '../../runs/errors'
import type { ScoreSessionRequest, ScoreSessionResponse } from './model'

export type ScoreSessionBody = typeof ScoreSessionRequest.static

const ZONELESS = /T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/
const ISO_FIELDS = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/
/** Unix seconds accepted: 1970-01-01 up to 9999-12-31 */
const MAX_UNIX_S = 253_402_300_799

/**
 * Epoch ms for the scorer. An impossible time (Feb 30, 25:00, beyond year 9999, before
 * 1970) is a 422 here: Date.parse alone rolls Feb 30 over to Mar 1. A string that is not
 * ISO-like at all is passed on as is, so the scorer names the field.
 */
function timeOf(v: string | number | null | undefined, index: number, field: 'entry_time' | 'exit_time'): number | string | null {
  if (v === null || v === undefined) return null
  const impossible = () =>
    new InvalidRequest([{ loc: ['body', 'trades', index, field], msg: 'not a possible time: ISO 8601 with a real calendar date and clock time, or Unix seconds from 0 to 253402300799', input: v }])
  if (typeof v === 'number') {
    if (v >= 0 && v <= MAX_UNIX_S) return v * 1000
    throw impossible()
  }
  const m = ISO_FIELDS.exec(v)
  if (m && (parseDay(m[1]) === null || (m[2] !== undefined && (+m[2] > 23 || +m[3] > 59 || (m[4] !== undefined && +m[4] > 59))))) throw impossible()
  const ms = Date.parse(ZONELESS.test(v) ? `${v}Z` : v)
  return Number.isFinite(ms) ? ms : v
}

/** A trade cannot exit before it entered. */
function exitBeforeEntry(trades: SessionTrade[]) {
  const i = trades.findIndex(t => typeof t.entry_time === 'number' && typeof t.exit_time === 'number' && t.exit_time < t.entry_time)
  return i < 0 ? null : i
}

export function runScoreSession(body: ScoreSessionBody): typeof ScoreSessionResponse.static {
  const trades: SessionTrade[] = body.trades.map((t, i) => ({ ...t, entry_time: timeOf(t.entry_time, i, 'entry_time'), exit_time: timeOf(t.exit_time, i, 'exit_time') }))
  const early = exitBeforeEntry(trades)
  if (early !== null)
    throw new InvalidRequest([{ loc: ['body', 'trades', early, 'exit_time'], msg: 'exit_time is before entry_time', input: body.trades[early].exit_time ?? null }])
  try {
    return { ...scoreSession(trades), stored: false }
  } catch (e) {
    if (!(e instanceof RangeError)) throw e
    const m = /^trades\[(\d+)\]\.(\w+)/.exec(e.message)
    const i = m ? Number(m[1]) : null
    const field = m ? m[2] : null
    const input = i !== null && field ? (body.trades[i] as unknown as Record<string, unknown>)[field] ?? null : null
    throw new InvalidRequest([{ loc: i !== null && field ? ['body', 'trades', i, field] : ['body', 'trades'], msg: e.message, input }])
  }
}
