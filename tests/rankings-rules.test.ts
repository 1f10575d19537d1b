/**
 * The ranking rules as pure functions, checked by hand on small populations: the total
 * order, dropped zero-trade rows, held-back rows, rank_change, streak, worst3's true ranks,
 * weekly_best3, and every headline_note_kind case of the contract's table.
 */
import { describe, expect, test } from 'bun:test'
import { configurations, configurationId, periodWindow, PRESETS, RULES_VERSION, simulateBodyOf } from '../src/records/rankings/configurations'
import { koreanName } from '../src/records/rankings/names-ko'
import { compareRows, eligibleList, headlineOf, heldBack, rankPopulation, top3, weeklyBest3, worst3, type RankedRow, type RowFigures } from '../src/records/rankings/rank'
import { listStrategies } from '../src/strategies/registry'
import { publicRow } from '../src/modules/rankings/service'
import { rowFigures } from './helpers/ranking-rows'

const row = rowFigures

const ids = (rows: { configuration_id: string }[]) => rows.map(r => r.configuration_id)

describe('configurations', () => {
  test('every registry strategy × the presets of docs/rankings.md, ids with the versioned prefix', () => {
    const all = configurations()
    const strategies = listStrategies()
    expect(RULES_VERSION).toBe('v3')
    for (const s of strategies) {
      const mine = all.filter(c => c.strategy === s.id)
      const expected = new Set([
        configurationId(s.id, '1H', { sl_pct: s.sl_pct, tp_pct: s.tp_pct, max_bars: s.max_bars }),
        `v3:${s.id}:1H:5-10-48`,
        `v3:${s.id}:1H:8-15-72`,
        `v3:${s.id}:4H:10-10-12`,
        `v3:${s.id}:4H:6-12-18`,
        `v3:${s.id}:1D:15-15-10`,
      ])
      expect(new Set(mine.map(c => c.id))).toEqual(expected)
      expect(mine.every(c => c.direction === s.direction && c.status === s.status)).toBe(true)
    }
    expect(new Set(all.map(c => c.id)).size).toBe(all.length)
    expect(PRESETS.map(p => p.timeframe)).toEqual(['1H', '4H', '1D'])
  })

  test('a default equal to a preset is one configuration, not two', () => {
    const s = { ...listStrategies()[0], sl_pct: 5, tp_pct: 10, max_bars: 48 }
    expect(configurations([s]).filter(c => c.timeframe === '1H').map(c => c.id)).toEqual([`v3:${s.id}:1H:5-10-48`, `v3:${s.id}:1H:8-15-72`])
  })

  test('every registry strategy has a hand-written Korean name', () => {
    for (const s of listStrategies()) {
      const ko = koreanName(s.id, s.direction)
      expect(ko).not.toBeNull()
      expect(ko!).toMatch(/[가-힣]/)
      expect(ko!.endsWith(s.direction === 'long' ? '롱' : '숏')).toBe(true)
    }
    expect(koreanName('bb-squeeze-short', 'short')).toBe('볼린저 밴드 스퀴즈 숏')
  })

  test('periods are the UTC days before the ranking date; the body is a /simulate body', () => {
    const d = Date.UTC(2026, 10, 25)
    expect(periodWindow(d, '7d')).toEqual({ start_date: '2026-11-18', end_date: '2026-11-24' })
    expect(periodWindow(d, '365d')).toEqual({ start_date: '2025-11-25', end_date: '2026-11-24' })
    const c = configurations()[0]
    const top = simulateBodyOf(c, d, '30d', 'top30')
    expect(top).toMatchObject({ strategy: c.strategy, top_n: 30, symbols: null, start_date: '2026-10-26', end_date: '2026-11-24', leverage: 1, fee_pct: 0.0005, market_type: 'futures', compounding: false, max_concurrent_positions: 100 })
    expect(simulateBodyOf(c, d, '30d', 'btc')).toMatchObject({ top_n: null, symbols: ['BTCUSDT'] })
  })
})

describe('ranking a population', () => {
  test('total order: PF, then win rate, then trades (descending), then id; zero-trade rows dropped', () => {
    const rows = [row('d', 2, 50, 20), row('c', 2, 50, 30), row('b', 2, 60, 10), row('a', 3, 10, 12), row('e', 2, 50, 20), row('z', 0, 0, 0)]
    const ranked = rankPopulation(rows, null)
    expect(ids(ranked)).toEqual(['a', 'b', 'c', 'd', 'e'])
    expect(ranked.map(r => r.rank)).toEqual([1, 2, 3, 4, 5])
    // the same input in another order gives the same ranks
    expect(ids(rankPopulation([...rows].reverse(), null))).toEqual(ids(ranked))
    expect(compareRows(row('x', 1, 1, 1), row('x', 1, 1, 1))).toBe(0)
  })

  test('a one-trade capped PF ranks first but is held back from top3 and worst3', () => {
    const rows = [row('one', 999, 100, 1, { pf_capped: true }), row('a', 2, 50, 40), row('b', 1.5, 50, 40), row('c', 1.2, 50, 40), row('d', 0.8, 40, 40), row('few', 0.1, 10, 9)]
    const ranked = rankPopulation(rows, null)
    // the day file keeps every row with both numbers: the overall rank and the eligible one
    expect(ranked[0]).toMatchObject({ configuration_id: 'one', rank: 1, eligible_rank: null, eligible: false, pf_capped: true })
    expect(ranked.map(r => [r.configuration_id, r.rank, r.eligible_rank])).toEqual([['one', 1, null], ['a', 2, 1], ['b', 3, 2], ['c', 4, 3], ['d', 5, 4], ['few', 6, null]])
    const list = eligibleList(ranked, null, true)
    expect(ids(top3(list))).toEqual(['a', 'b', 'c'])
    // ranks users see are ranks among the eligible rows: 1, 2, 3 for the top
    expect(top3(list).map(r => [r.rank, r.overall_rank])).toEqual([[1, 2], [2, 3], [3, 4]])
    // worst3: the worst eligible first, each with its eligible rank (and its overall rank beside it)
    expect(worst3(list).map(r => [r.configuration_id, r.rank, r.overall_rank])).toEqual([['d', 4, 5], ['c', 3, 4], ['b', 2, 3]])
    expect(ids(heldBack(ranked))).toEqual(['one', 'few'])
  })

  test('a file of rankings-1 (overall ranks only) gives the same ranked list, rank_change recomputed from the previous file', () => {
    const day1 = rankPopulation([row('thin', 999, 100, 2), row('a', 3, 50, 20), row('b', 2, 50, 20)], null)
    const day2 = rankPopulation([row('b', 4, 50, 20), row('thin', 999, 100, 2), row('a', 3, 50, 20)], day1)
    // as rankings-1 wrote them: no eligible_rank, rank_change between overall ranks
    const v1 = (rows: RankedRow[], prev: RankedRow[] | null) =>
      rows.map(({ eligible_rank, previous_eligible_rank, ...r }) => {
        const p = prev?.find(x => x.configuration_id === r.configuration_id)
        return { ...r, previous_rank: p ? p.rank : null, rank_change: p ? p.rank - r.rank : null }
      })
    const old2 = v1(day2, day1)
    expect(old2.map(r => [r.configuration_id, r.rank, r.rank_change])).toEqual([['thin', 1, 0], ['b', 2, 1], ['a', 3, -1]])
    const derived = eligibleList(old2, v1(day1, null), false)
    const stored = eligibleList(day2, null, true)
    expect(derived.map(r => [r.configuration_id, r.rank, r.overall_rank, r.rank_change])).toEqual([['b', 1, 2, 1], ['a', 2, 3, -1]])
    expect(stored.map(r => [r.configuration_id, r.rank, r.overall_rank, r.rank_change])).toEqual([['b', 1, 2, 1], ['a', 2, 3, -1]])
  })

  test('rank_change and streak over three days, by hand', () => {
    const day1 = rankPopulation([row('a', 3, 50, 20), row('b', 2, 50, 20), row('c', 1, 50, 20)], null)
    expect(day1.map(r => [r.configuration_id, r.rank_change, r.streak])).toEqual([['a', null, 1], ['b', null, 1], ['c', null, 1]])
    const day2 = rankPopulation([row('c', 4, 50, 20), row('a', 3, 50, 20), row('new', 2.5, 50, 20)], day1)
    // c: 3 -> 1 (+2); a: 1 -> 2 (-1); new: absent yesterday (null); b dropped out
    expect(day2.map(r => [r.configuration_id, r.rank, r.previous_eligible_rank, r.rank_change, r.streak])).toEqual([
      ['c', 1, 3, 2, 2],
      ['a', 2, 1, -1, 2],
      ['new', 3, null, null, 1],
    ])
    // a population beyond the top 10: rank 11 has streak 0, and its streak restarts at 1 when it climbs back
    const many = (lead: string) => [row(lead, 100, 50, 20), ...Array.from({ length: 11 }, (_, k) => row(`f${String(k).padStart(2, '0')}`, 50 - k, 50, 20))]
    const day3 = rankPopulation([...many('c').slice(1), row('c', 1, 50, 20)], day2)
    const c3 = day3.find(r => r.configuration_id === 'c')!
    expect([c3.rank, c3.streak, c3.rank_change]).toEqual([12, 0, -11])
    const day4 = rankPopulation(many('c'), day3)
    expect(day4[0]).toMatchObject({ configuration_id: 'c', rank: 1, streak: 1, rank_change: 11, previous_streak: 0 })
    expect(day4.find(r => r.configuration_id === 'f00')!.streak).toBe(2)
    // rows held back by the minimum are not counted in the top 10: the 10 best eligible rows are
    const withThin = rankPopulation([row('thin', 999, 100, 2, { pf_capped: true }), ...many('c')], null)
    expect(withThin[0]).toMatchObject({ configuration_id: 'thin', rank: 1, streak: 0 })
    expect(withThin.filter(r => r.streak === 1).map(r => r.rank)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
  })

  test('weekly_best3: eligible on at least 5 of the last 7 days, by mean PF then mean win rate', () => {
    const day = (rows: RowFigures[]) => rankPopulation(rows, null)
    const days: RankedRow[][] = []
    for (let k = 0; k < 7; k++) {
      const rows = [row('steady', 2, 60, 20), row('tie', 2, 70, 20)]
      if (k < 4) rows.push(row('spiky', 9, 50, 20)) // 4 days only: not enough
      if (k < 5) rows.push(row('five', 1.5, 50, 20)) // exactly 5 days
      rows.push(row('thin', 5, 50, k < 3 ? 20 : 5)) // eligible on 3 days only
      days.push(day(rows))
    }
    const best = weeklyBest3(days)
    expect(best.map(w => [w.configuration_id, w.days_ranked, w.mean_profit_factor, w.mean_win_rate])).toEqual([
      ['tie', 7, 2, 70],
      ['steady', 7, 2, 60],
      ['five', 5, 1.5, 50],
    ])
  })
})

describe('headline (the contract table, one case each)', () => {
  const verified = (id: string, pf: number, trades = 20) => row(id, pf, 50, trades, { status: 'verified' })
  /** the headline of a population as /rankings/daily computes it: on the ranked list, held-back rows apart */
  const headlineOfRows = (rows: RowFigures[], published: boolean) => {
    const ranked = rankPopulation(rows, null)
    return headlineOf(eligibleList(ranked, null, true), published, heldBack(ranked))
  }
  test('null: a verified configuration is in top3', () => {
    const h = headlineOfRows([row('a', 3, 50, 20), verified('v', 2), row('b', 1, 50, 20)], true)
    expect(h).toMatchObject({ headline_has_verified: true, headline_note_kind: null, headline_note: null })
    expect(h.verified_in_ranking).toEqual([{ configuration_id: 'v', rank: 2, profit_factor: 2, pf_capped: false }])
  })
  test('null: nothing ranked (empty top3)', () => {
    expect(headlineOfRows([row('a', 3, 50, 0)], true)).toMatchObject({ headline_has_verified: false, headline_note_kind: null, headline_note: null, verified_in_ranking: [] })
    // rows exist but all are held back: top3 is empty too
    expect(headlineOfRows([row('a', 3, 50, 2)], true).headline_note_kind).toBeNull()
  })
  test('no_verified_in_group', () => {
    const h = headlineOfRows([row('a', 3, 50, 20), row('b', 2, 50, 20)], true)
    expect(h.headline_note_kind).toBe('no_verified_in_group')
    expect(h.headline_note!.en).toContain('No strategy labelled verified')
    expect(h.headline_note!.ko).toMatch(/[가-힣]/)
  })
  test('verified_below: verified ones rank lower and all have PF below 1', () => {
    const rows = [row('a', 3, 50, 20), row('b', 2, 50, 20), row('c', 1.5, 50, 20), verified('v1', 0.9), verified('v2', 0.5)]
    const h = headlineOfRows(rows, true)
    expect(h.headline_note_kind).toBe('verified_below')
    expect(h.headline_has_verified).toBe(false)
    expect(h.headline_note!.en).toContain('#4 (PF 0.90), #5 (PF 0.50)')
    expect(h.verified_in_ranking.map(v => v.rank)).toEqual([4, 5])
  })
  test('verified_ranked_lower: verified ones rank lower, not all below PF 1', () => {
    const rows = [row('a', 3, 50, 20), row('b', 2, 50, 20), row('c', 1.5, 50, 20), verified('v1', 1.2), verified('v2', 0.5)]
    const h = headlineOfRows(rows, true)
    expect(h.headline_note_kind).toBe('verified_ranked_lower')
    expect(h.headline_note!.en).toBe('No verified configuration is in the top 3; verified ones rank lower: #4 (PF 1.20), #5 (PF 0.50).')
  })
  test('a verified configuration held back by the minimum is not in the ranked list: never "ranks lower" from above top3', () => {
    // ranked first overall on one trade: held back, so the ranking has no verified row
    const rows = [verified('v', 999, 1), row('a', 3, 50, 20), row('b', 2, 50, 20), row('c', 1.5, 50, 20)]
    const h = headlineOfRows(rows, true)
    expect(h).toMatchObject({ headline_has_verified: false, headline_note_kind: 'no_verified_in_group', verified_in_ranking: [] })
    expect(h.headline_note!.en).toBe('No strategy labelled verified is in this ranking: every ranked configuration is testing or research. 1 verified configuration is held back (fewer than 10 trades; see held_back).')
    expect(h.headline_note!.ko).toContain('held_back')
  })
  test('held-back verified rows above top3 and eligible ones below: the sentence lists eligible ranks only', () => {
    const rows = [verified('v-thin', 999, 2), row('a', 3, 50, 20), row('b', 2, 50, 20), row('c', 1.5, 50, 20), verified('v', 1.2)]
    const h = headlineOfRows(rows, true)
    expect(h.headline_note_kind).toBe('verified_ranked_lower')
    expect(h.verified_in_ranking).toEqual([{ configuration_id: 'v', rank: 4, profit_factor: 1.2, pf_capped: false }])
    expect(h.headline_note!.en).toBe('No verified configuration is in the top 3; verified ones rank lower: #4 (PF 1.20). 1 verified configuration is held back (fewer than 10 trades; see held_back).')
    expect(h.headline_note!.en).not.toContain('#1')
  })
  test('unknown: a group that is not a published universe has no sentence', () => {
    const h = headlineOfRows([row('a', 3, 50, 20)], false)
    expect(h).toMatchObject({ headline_note_kind: 'unknown', headline_note: null })
  })
})

describe('ruin in a published row', () => {
  test('a row ranked under rules v2 shows its ruined_at; a row of a v1 day file, which recorded none, shows no such key', () => {
    const [v2] = rankPopulation([row('a', 1.2, 50, 40, { ruined_at: '2026-11-10T05:00:00Z' })], null)
    const [v1] = rankPopulation([row('b', 1.2, 50, 40)], null)
    expect(publicRow({ ...v2, overall_rank: v2.rank }).ruined_at).toBe('2026-11-10T05:00:00Z')
    expect('ruined_at' in publicRow({ ...v1, overall_rank: v1.rank })).toBe(false)
  })

  test('every published body stops at ruin, as /simulate does by default', () => {
    const c = configurations()[0]
    expect(simulateBodyOf(c, Date.UTC(2026, 10, 25), '30d', 'top50').stop_at_ruin).toBe(true)
  })
})
