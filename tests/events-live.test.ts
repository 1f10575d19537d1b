/**
 * The live steps announce what they record (docs/events.md): every signal, every scored
 * result the moment it is final (with its leaf hash), every sealed day (with a proof URL per
 * leaf), every published ranking file and every paper position opened or closed gets one
 * event, written in the record's own transaction, whose payload is what the record's route
 * serves, so a receiver can check it there.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { dayLeaves, dayRoots, paperPositions, scoredSignals, signals } from '../db/schema'
import { DAY_MS, HOUR_MS } from '../src/time'
import { eventsAfter, type EventRow } from '../src/records/events'
import { positionItem } from '../src/records/paper'
import { signalItem } from '../src/records/signal-item'
import { fillWalkUniverse, makeHarness } from './helpers/harness'
import { publishPicksDay, rankedRegistryRow, runLiveHours } from './helpers/live-hours'

const T0 = Date.UTC(2025, 0, 1)
const START = T0 + 30 * DAY_MS + 5 * HOUR_MS
const END = START + 4 * DAY_MS
const h = makeHarness({ fill: store => fillWalkUniverse(store, ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'], T0, 36, 51), nowMs: START })
afterAll(() => h.cleanup())

const FREQUENT = ['bb-squeeze-long', 'momentum-breakout-short', 'macd-cross-long']
let all: EventRow[] = []
const of = (kind: string) => all.filter(e => e.kind === kind)
const payload = (e: EventRow) => JSON.parse(e.payload)

beforeAll(async () => {
  const date = new Date(START).toISOString().slice(0, 10)
  await publishPicksDay(h, date, FREQUENT.map((s, i) => rankedRegistryRow(s, i + 1)), (p, g) => g === 'top50' && p === '30d')
  await runLiveHours(h, START, END)
  all = await eventsAfter(h.deps.db, 0, { limit: 1_000_000 })
}, 120_000)

describe('events of the live records', () => {
  test('ids rise with the writes and every event carries its filter fields', async () => {
    expect(all.map(e => e.id)).toEqual(all.map((_, i) => i + 1))
    for (const k of ['signal', 'scored', 'day_root', 'ranking', 'paper']) expect(of(k).length).toBeGreaterThan(0)
    for (const e of [...of('signal'), ...of('scored'), ...of('paper')]) {
      expect(e.strategy).not.toBeNull()
      expect(e.coin).not.toBeNull()
      expect(['verified', 'testing', 'research']).toContain(e.status!)
    }
  })

  test('one signal event per recorded signal, its payload the /signals/history item', async () => {
    const rows = (await h.deps.db.orm.select().from(signals))
    const byId = new Map(rows.map(r => [r.id, r]))
    expect(of('signal').map(e => payload(e).id).sort()).toEqual(rows.map(r => r.id).sort())
    for (const e of of('signal')) expect(payload(e)).toEqual(signalItem(byId.get(payload(e).id)!))
    const history = await h.req('/signals/history?hours=24')
    const recent = history.body.signals[0]
    expect(payload(of('signal').find(e => payload(e).id === recent.id)!)).toEqual(recent)
  })

  test('one scored event per final scored result, as /signals/scored serves it, with the leaf hash the sealed day holds', async () => {
    const final = (await h.deps.db.orm.select().from(scoredSignals)).filter(r => r.status !== 'open')
    expect(of('scored').map(e => payload(e).scored.id).sort()).toEqual(final.map(r => r.signalId).sort())
    const leaves = new Map((await h.deps.db.orm.select().from(dayLeaves)).map(l => [l.recordId, l.leafHash]))
    let checked = 0
    for (const e of of('scored')) {
      const p = payload(e)
      expect(p.record_id).toBe(`scored_signal:${p.scored.id}`)
      if (leaves.has(p.record_id)) {
        expect(p.leaf_hash).toBe(leaves.get(p.record_id)!)
        checked++
      }
    }
    expect(checked).toBeGreaterThan(0)
    const sample = of('scored').slice(0, 5).map(payload)
    const served = await h.req(`/signals/scored?signal_ids=${sample.map(p => p.scored.id).join(',')}`)
    for (const p of sample) expect(served.body.signals.find((s: any) => s.id === p.scored.id)).toEqual(p.scored)
  })

  test('one day_root event per sealed day: the root as /trust/merkle serves it, a working proof URL for every leaf', async () => {
    const roots = (await h.deps.db.orm.select().from(dayRoots))
    expect(of('day_root').map(e => payload(e).date)).toEqual(roots.map(r => r.day))
    const withLeaves = of('day_root').map(payload).find(p => p.leaf_count > 0)!
    const { proofs, ...root } = withLeaves
    expect(root).toEqual((await h.req(`/trust/merkle/${root.date}`)).body)
    const leaves = (await h.deps.db.orm.select().from(dayLeaves)).filter(l => l.day === root.date)
    expect(proofs.map((p: any) => p.record_id)).toEqual(leaves.sort((a, b) => a.idx - b.idx).map(l => l.recordId))
    for (const p of proofs.slice(0, 3)) {
      const proof = await h.req(p.proof_url)
      expect(proof.status).toBe(200)
      expect(proof.body).toMatchObject({ leaf_hash: p.leaf_hash, root: root.root })
    }
  })

  test('the ranking event names the day file whose served bytes have its sha256', async () => {
    const [e] = of('ranking')
    const p = payload(e!)
    expect(p.url).toBe(`/rankings/files/${p.date.replaceAll('-', '')}`)
    const res = await h.app.handle(new Request(`http://localhost${p.url}`))
    expect(createHash('sha256').update(await res.text()).digest('hex')).toBe(p.sha256)
  })

  test('paper events: a position opened and closed, each announced once, as /paper-trading serves it', async () => {
    const positions = (await h.deps.db.orm.select().from(paperPositions))
    const events = of('paper').map(payload)
    const closed = positions.filter(p => !['pending', 'open'].includes(p.status))
    expect(closed.length).toBeGreaterThan(0)
    for (const p of positions) {
      const mine = events.filter(e => e.position.id === p.id)
      const actions = mine.map(e => e.action)
      if (p.status === 'pending') expect(actions).toEqual([])
      else if (p.status === 'open') expect(actions).toEqual(['opened'])
      else expect(actions.at(-1)).toBe('closed')
      expect(actions.filter(a => a === 'closed').length).toBeLessThanOrEqual(1)
      if (actions.includes('closed')) expect(mine.at(-1)!.position).toEqual(positionItem(p))
    }
    const state = await h.req('/paper-trading?cycle=1')
    const servedClosed = state.body.closed_positions[0]
    expect(events.find(e => e.action === 'closed' && e.position.id === servedClosed.id)!.position).toEqual(servedClosed)
  })
})
