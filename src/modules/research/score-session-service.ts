/**
 * POST /simulate/score-session: hand-made trades of a replay session scored by
 * engine/score-session.ts. Stores nothing. Times arrive as ISO 8601 strings (UTC when
 * they carry no zone) or Unix seconds, as elsewhere in the API.
 */
import { scoreSession, type SessionTrade } from '../../engine/score-session'
import { InvalidRequest } from '../../runs/errors'
import type { ScoreSessionRequest, ScoreSessionResponse } from './model'

export type ScoreSessionBody = typeof ScoreSessionRequest.static

const ZONELESS = /T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/

/** Epoch ms for the scorer; an unreadable string is passed on as is, so the scorer names the field. */
function timeOf(v: string | number | null | undefined): number | string | null {
  if (v === null || v === undefined) return null
  if (typeof v === 'number') return v * 1000
  const ms = Date.parse(ZONELESS.test(v) ? `${v}Z` : v)
  return Number.isFinite(ms) ? ms : v
}

export function runScoreSession(body: ScoreSessionBody): typeof ScoreSessionResponse.static {
  const trades: SessionTrade[] = body.trades.map(t => ({ ...t, entry_time: timeOf(t.entry_time), exit_time: timeOf(t.exit_time) }))
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
