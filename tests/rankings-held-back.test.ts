/**
 * Rows held back for too few trades are not in the ranked list users see (issue #24 §1):
 * ranks in top3, worst3, weekly_best3, verified_in_ranking, the headline and the mail are
 * ranks among the eligible rows; the held-back rows are reported apart (`held_back`). A day
 * file published in the older layout (rankings-1: overall ranks only) is still served byte
 * for byte, and /rankings/daily reads it the same way.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { gatherDigest } from '../src/mail/weekly'
import { GROUPS, periodWindow, PERIODS } from '../src/records/rankings/configurations'
import { DayFiles, type DayFile } from '../src/records/rankings/day-files'
import type { RankedRow } from '../src/records/rankings/rank'
import { makeHarness, type Harness } from './helpers/harness'
import { rowFigures } from './helpers/ranking-rows'

let h: Harness

/** a row as rankings-1 wrote it: overall rank, previous overall rank, rank_change between them */
function v1Row(id: string, rank: number, trades: number, pf: number, over: Partial<RankedRow> = {}): RankedRow {
  const figures = rowFigures(`v1:${id}:1H:5-10-48`, pf, 50, trades, { strategy: id, name_en: id, pf_capped: pf === 999, sharpe_ratio: 0.5, max_drawdown_pct: 3 })
  return { ...figures, rank, eligible: trades >= 10, previous_rank: null, previous_streak: null, rank_change: null, streak: 0, ...over }
}

function v1File(date: string, previous: string | null, rows: RankedRow[]): DayFile {
  const dateMs = Date.parse(`${date}T00:00:00Z`)
  const periods = Object.fromEntries(
    PERIODS.map(p => [p, { ...periodWindow(dateMs, p), groups: Object.fromEntries(GROUPS.map(g => [g, { symbols: ['BTCUSDT'], top_n_requested: 50, eligible_universe: 50, rows, weekly_best3: [] }])) }]),
  ) as unknown as DayFile['periods']
  // rankings-1 wrote generated_at with milliseconds
  return { schema_version: 'rankings-1', rules_version: 'v1', date, generated_at: `${date}T00:30:00.123Z`, written_by: 'schedule', engine_version: 'test', data_version: 'test', previous_date: previous, rules: { configurations: 5, strategies: 5 }, periods }
}

// day 1: a verified configuration with two trades (capped PF) ranks first overall
const day1 = [
  v1Row('v-thin', 1, 2, 999, { status: 'verified' }),
  v1Row('a', 2, 40, 3, { streak: 1 }),
  v1Row('b', 3, 40, 2, { streak: 1 }),
  v1Row('c', 4, 40, 1.5, { streak: 1 }),
  v1Row('v', 5, 40, 1.2, { status: 'verified', streak: 1 }),
]
// day 2: b overtakes a; rank_change as rankings-1 stored it (overall ranks)
const day2 = [
  v1Row('v-thin', 1, 3, 999, { status: 'verified', previous_rank: 1, previous_streak: 0, rank_change: 0 }),
  v1Row('b', 2, 41, 3.5, { previous_rank: 3, previous_streak: 1, rank_change: 1, streak: 2 }),
  v1Row('a', 3, 41, 3, { previous_rank: 2, previous_streak: 1, rank_change: -1, streak: 2 }),
  v1Row('c', 4, 41, 1.5, { previous_rank: 4, previous_streak: 1, rank_change: 0, streak: 2 }),
  v1Row('v', 5, 41, 1.2, { status: 'verified', previous_rank: 5, previous_streak: 1, rank_change: 0, streak: 2 }),
  v1Row('new-thin', 6, 1, 0.5, {}),
]

beforeAll(async () => {
  h = makeHarness({ nowMs: Date.UTC(2026, 10, 3, 12) })
  const files = new DayFiles(h.deps.db)
  expect((await files.publish(v1File('2026-11-01', null, day1), 0)).published).toBe(true)
  expect((await files.publish(v1File('2026-11-02', '2026-11-01', day2), 0)).published).toBe(true)
})
afterAll(() => h.cleanup())

describe('/rankings/daily on a day with held-back rows', () => {
  test('ranks are ranks among the eligible rows; the overall rank stands beside each', async () => {
    const b = (await h.req('/rankings/daily?date=20261102')).body
    expect(b.top3.map((r: any) => [r.configuration_id.split(':')[1], r.rank, r.overall_rank])).toEqual([['b', 1, 2], ['a', 2, 3], ['c', 3, 4]])
    expect(b.worst3.map((r: any) => [r.configuration_id.split(':')[1], r.rank, r.overall_rank])).toEqual([['v', 4, 5], ['c', 3, 4], ['a', 2, 3]])
    expect([b.ranked_count, b.held_back_count]).toEqual([4, 2])
  })

  test('rank_change compares eligible ranks, recomputed from the previous file for a rankings-1 file', async () => {
    const b = (await h.req('/rankings/daily?date=20261102&selection=true')).body
    // eligible ranks: day 1 a=1 b=2 c=3 v=4; day 2 b=1 a=2 c=3 v=4
    expect(b.selection.rows.map((r: any) => [r.configuration_id.split(':')[1], r.rank, r.rank_change])).toEqual([['b', 1, 1], ['a', 2, -1], ['c', 3, 0], ['v', 4, 0]])
    expect(b.selection.previous_day.ranks.map((r: any) => [r.configuration_id.split(':')[1], r.previous_rank])).toEqual([['b', 2], ['a', 1], ['c', 3], ['v', 4]])
  })

  test('held_back: the rows left out of the list, their figures and why', async () => {
    const b = (await h.req('/rankings/daily?date=20261102')).body
    expect(b.held_back).toEqual([
      expect.objectContaining({ configuration_id: 'v1:v-thin:1H:5-10-48', overall_rank: 1, status: 'verified', total_trades: 3, profit_factor: 999, pf_capped: true, reason: 'min_trades', why: '3 trades, fewer than the 10 a ranked configuration needs' }),
      expect.objectContaining({ configuration_id: 'v1:new-thin:1H:5-10-48', overall_rank: 6, total_trades: 1, reason: 'min_trades', why: '1 trade, fewer than the 10 a ranked configuration needs' }),
    ])
  })

  test('the headline is computed on the ranked list: a held-back verified row above top3 is not "ranked lower"', async () => {
    const b = (await h.req('/rankings/daily?date=20261102')).body
    expect(b.verified_in_ranking).toEqual([{ configuration_id: 'v1:v:1H:5-10-48', rank: 4, profit_factor: 1.2, pf_capped: false }])
    expect(b.headline_note_kind).toBe('verified_ranked_lower')
    expect(b.headline_note.en).toBe('No verified configuration is in the top 3; verified ones rank lower: #4 (PF 1.20). 1 verified configuration is held back (fewer than 10 trades; see held_back).')
  })

  test('an old file is served byte for byte; the answer names its layout apart and writes whole seconds', async () => {
    const stored = (await new DayFiles(h.deps.db).get('2026-11-02'))!
    const res = await h.app.handle(new Request('http://localhost/rankings/files/20261102'))
    const bytes = await res.text()
    expect(bytes).toBe(stored.body)
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(stored.sha256)
    expect(JSON.parse(bytes).periods['30d'].groups.top50.rows[0]).not.toHaveProperty('eligible_rank')
    const b = (await h.req('/rankings/daily?date=20261102')).body
    expect(b.schema_version).toBe('rankings-2')
    expect(b.citation.schema_version).toBe('rankings-1')
    expect(b.generated_at).toBe('2026-11-02T00:30:00Z')
  })

  test('the weekly mail quotes the same ranks as the page', async () => {
    const d = await gatherDigest(h.deps.db, Date.UTC(2026, 10, 3, 12))
    expect(d.top30d.map(r => [r.strategyId, r.rank])).toEqual([['b', 1], ['a', 2], ['c', 3]])
  })
})
