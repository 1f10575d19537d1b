/**
 * The records behind one interface (src/db.ts) give the same answers on SQLite and on
 * Postgres: each case runs on a fresh database of each dialect (Postgres: its own database
 * on DATABASE_URL's server, else a private cluster, else skipped with the reason printed).
 * The races of several processes on Postgres are tests/records-postgres-races.test.ts.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { openDatabase, openDb, type Db } from '../src/db'
import { appendEvents, eventCount, eventsAfter, latestEventId, oldestKeptId, eventWakeups } from '../src/records/events'
import { JobRuns, type RunOwner } from '../src/records/job-runs'
import { collectLeaves, dayView, latestSealedDay, sealDay, sealedDayOf } from '../src/records/merkle-leaves'
import { activeEndpoints, addEndpoint, pauseEndpoint, removeEndpoint } from '../src/records/push-endpoints'
import { DayFiles, type DayFile } from '../src/records/rankings/day-files'
import { activeSubscribers, requestSubscription, activateSubscriber } from '../src/records/subscribers'
import {
  finalScoredForDay,
  firstSignalTimeMs,
  insertSignals,
  publishedCountSince,
  recordScan,
  saveScored,
  scanWatermark,
  scoredRows,
  scoringPendingBefore,
  signalsPage,
  signalsToScore,
  type ScoredRow,
  type SignalRow,
} from '../src/records/signals'
import { Outbox } from '../src/mail/outbox'
import { PushOutbox } from '../src/push/outbox'
import { ResultStore } from '../src/runs/result-store'
import { ManualClock } from '../src/clock'
import { appendTrials, bestTrial, failInterrupted, insertResearchRun, liveRuns, markRunning, researchRun, stopRun, trialCount, trialPage, trialsAfter } from '../src/records/research-runs'
import { refusal } from './helpers/db-error'
import { testPostgres } from './helpers/postgres'

const pg = await testPostgres('the records on both databases')
afterAll(() => pg?.cleanup(), 60_000)

const opened: Db[] = []
afterAll(async () => {
  for (const db of opened) await db.close()
})

/** A fresh database of the dialect. */
async function fresh(dialect: 'sqlite' | 'postgres'): Promise<Db> {
  const db = dialect === 'sqlite' ? openDb(':memory:') : await openDatabase(await pg!.another())
  opened.push(db)
  return db
}

const HOUR = 3_600_000
const sig = (n: number, over: Partial<SignalRow> = {}): SignalRow => ({
  id: `v1:s:1H:C${n}:${n * HOUR}`,
  strategy: 's',
  strategyName: 'S',
  status: 'verified',
  coin: `C${n}`,
  direction: 'long',
  timeframe: '1H',
  signalBarMs: n * HOUR,
  signalTimeMs: (n + 1) * HOUR,
  entryPrice: 100 + n,
  slPct: 5,
  tpPct: 10,
  maxBars: 48,
  publishedAtMs: (n + 1) * HOUR + 10_000,
  backfill: false,
  ...over,
})
const scored = (s: SignalRow, over: Partial<ScoredRow> = {}): ScoredRow => ({
  signalId: s.id,
  engine: 'reference-engine-v2',
  status: 'open',
  exitReason: null,
  reason: null,
  entryTimeMs: s.signalTimeMs,
  entryPrice: s.entryPrice,
  pnlPct: 1.5,
  grossPct: null,
  feePct: null,
  fundingPct: null,
  exitPrice: null,
  exitTimeMs: null,
  barsHeld: null,
  slTpSameBar: null,
  feeFrac: 0.0005,
  leverage: 1,
  mmrFrac: 0.005,
  slPct: 5,
  tpPct: 10,
  maxBars: 48,
  fundingSource: 'real',
  fundingEvents: null,
  fundingEventsReal: null,
  markedThroughMs: s.signalTimeMs + HOUR,
  updatedAtMs: 0,
  finalizedAtMs: null,
  exitResolution: null,
  ...over,
})
const owner: RunOwner = { host: 'test-host', pid: 1, instance: 'a' }

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe.skipIf(dialect === 'postgres' && !pg)(`records on ${dialect}`, () => {
    test('signals: recorded once, announced once, scored, paged and counted', async () => {
      const db = await fresh(dialect)
      expect(db.dialect).toBe(dialect)
      expect(await insertSignals(db, [sig(1), sig(2), sig(3)])).toBe(3)
      expect(await insertSignals(db, [sig(2), sig(4)])).toBe(1) // sig(2) is recorded already
      expect((await eventsAfter(db, 0, { limit: 10 })).map(e => JSON.parse(e.payload).id)).toEqual([sig(1).id, sig(2).id, sig(3).id, sig(4).id])
      expect(await firstSignalTimeMs(db)).toBe(2 * HOUR)
      expect(await publishedCountSince(db, 3 * HOUR)).toBe(3)
      const page = await signalsPage(db, { fromMs: 0, toMs: 10 * HOUR, after: null, limit: 2 })
      expect([page.total, page.rows.map(r => r.coin)]).toEqual([4, ['C4', 'C3']])
      // the scorer's work list: every signal without a row, then the open ones it re-marks
      expect((await signalsToScore(db)).map(x => x.signal.coin)).toEqual(['C1', 'C2', 'C3', 'C4'])
      await saveScored(db, [{ row: scored(sig(1)), existed: false }, { row: scored(sig(2), { status: 'tp', exitReason: 'tp', exitTimeMs: 5 * HOUR, exitPrice: 110, slTpSameBar: true, finalizedAtMs: 5 * HOUR }), existed: false }])
      expect((await signalsToScore(db)).map(x => [x.signal.coin, x.scored?.status ?? null])).toEqual([['C1', 'open'], ['C3', null], ['C4', null]])
      // an open row re-marked in place (a boolean column included); a final one is never rewritten
      await saveScored(db, [{ row: scored(sig(1), { pnlPct: -2, slTpSameBar: false, markedThroughMs: 9 * HOUR }), existed: true }, { row: scored(sig(2), { pnlPct: 0 }), existed: true }])
      const rows = await scoredRows(db, { ids: [sig(1).id, sig(2).id] })
      expect(rows.map(r => [r.scored.signalId, r.scored.pnlPct, r.scored.slTpSameBar])).toEqual([[sig(2).id, 1.5, true], [sig(1).id, -2, false]])
      expect((await finalScoredForDay(db, 4 * HOUR, 6 * HOUR)).map(r => r.signal.id)).toEqual([sig(2).id])
      expect(await scoringPendingBefore(db, 10 * HOUR)).toBe(true)
      await recordScan(db, { timeframe: '1H', signalBarMs: 7 * HOUR, scannedAtMs: 8 * HOUR, coins: 4, strategies: 1, signalsFound: 4 })
      await recordScan(db, { timeframe: '1H', signalBarMs: 7 * HOUR, scannedAtMs: 9 * HOUR, coins: 4, strategies: 1, signalsFound: 4 })
      expect(await scanWatermark(db, '1H')).toBe(7 * HOUR)
    })

    test('events: ids in commit order, filters, the kept window, and a wake-up only after the commit', async () => {
      const db = await fresh(dialect)
      let woken = 0
      const wake = () => woken++
      eventWakeups.on('appended', wake)
      try {
        await db.tx(async tx => {
          await appendEvents(tx, 100, [{ kind: 'signal', strategy: 'a', coin: 'BTC', status: 'verified', payload: { z: 1, a: 2 } }])
          await Bun.sleep(5)
          expect(woken).toBe(0)
        })
        await Bun.sleep(5)
        expect(woken).toBe(1)
        // a rolled-back transaction leaves no event and wakes nobody
        expect(await refusal(db.tx(async tx => {
          await appendEvents(tx, 150, [{ kind: 'paper', payload: {} }])
          throw new Error('the record write failed')
        }))).toBe('the record write failed')
        await Bun.sleep(5)
        expect(woken).toBe(1)
      } finally {
        eventWakeups.off('appended', wake)
      }
      await db.tx(tx => appendEvents(tx, 200, [{ kind: 'ranking', payload: { date: 'x' } }, { kind: 'signal', strategy: 'b', coin: 'ETH', status: 'testing', payload: {} }]))
      const all = await eventsAfter(db, 0, { limit: 10 })
      expect(all.map(e => [e.kind, e.createdAt])).toEqual([['signal', 100], ['ranking', 200], ['signal', 200]])
      expect(all[0]!.payload).toBe('{"a":2,"z":1}')
      expect((await eventsAfter(db, 0, { limit: 10, strategies: ['b'] })).map(e => e.coin)).toEqual(['ETH'])
      expect(await latestEventId(db)).toBe(all[2]!.id)
      expect(await oldestKeptId(db, 150)).toBe(all[1]!.id)
      expect(await eventCount(db)).toBe(3)
      // append-only, whatever the database
      expect(await refusal(db.orm.update(db.t.events).set({ payload: '{}' }))).toContain('append-only')
    })

    test('job runs: one claim per slot, held while live, done once finished, abandoned when dead', async () => {
      const db = await fresh(dialect)
      const runs = new JobRuns(db)
      const claim = (manual = false, isAbandoned = () => false) =>
        runs.claim({ job: 'daily', slot: 'daily:1', trigger: manual ? 'manual' : 'schedule', slotMs: 1, startedAtMs: 10, owner }, { manual, isAbandoned })
      const first = await claim()
      expect(first.kind).toBe('claimed')
      expect((await claim()).kind).toBe('held')
      const taken = await claim(false, () => true) // the holder died
      expect(taken.kind === 'claimed' && [taken.row.attempt, taken.abandoned.map(r => r.attempt)]).toEqual([2, [1]])
      if (taken.kind !== 'claimed') throw new Error('unreachable')
      expect(await runs.heartbeat(taken.row.id, 20)).toBe(true)
      await runs.finish(taken.row.id, { finishedAtMs: 1010, outcome: 'ok', error: null, counts: { rows: 3 } })
      expect(await runs.heartbeat(taken.row.id, 30)).toBe(false)
      expect((await claim()).kind).toBe('done')
      expect((await claim(true)).kind).toBe('claimed') // a manual re-run takes the next attempt
      expect((await runs.bySlot('daily:1')).map(r => [r.attempt, r.outcome, r.counts])).toEqual([[1, 'failed', null], [2, 'ok', { rows: 3 }], [3, null, null]])
      expect([...(await runs.doneSlots('daily', 0))]).toEqual(['daily:1'])
      expect((await runs.recent('daily', 1))[0]!.attempt).toBe(3)
      const summary = (await runs.summary()).sort((a, b) => String(a.outcome).localeCompare(String(b.outcome)))
      expect(summary).toEqual([{ job: 'daily', outcome: 'failed', n: 1, ms: 0 }, { job: 'daily', outcome: null, n: 1, ms: 0 }, { job: 'daily', outcome: 'ok', n: 1, ms: 1000 }].sort((a, b) => String(a.outcome).localeCompare(String(b.outcome))))
    })

    test('day roots: sealed once with their leaves and announced; a sealed day is read back as sealed', async () => {
      const db = await fresh(dialect)
      await insertSignals(db, [sig(1)])
      await saveScored(db, [{ row: scored(sig(1), { status: 'tp', exitReason: 'tp', exitTimeMs: 5 * HOUR, exitPrice: 110, finalizedAtMs: 5 * HOUR }), existed: false }])
      const leaves = await collectLeaves(db, 0, 24 * HOUR, [])
      expect(leaves.length).toBe(1)
      const root = await sealDay(db, '19700101', leaves, 25 * HOUR)
      expect(await latestSealedDay(db)).toBe('19700101')
      expect(await sealedDayOf(db, leaves[0]!.recordId)).toBe('19700101')
      const v = await dayView(db, '19700101', 0, [])
      expect([v.sealed, v.root, v.leaves.map(l => l.leafHash)]).toEqual([true, root.root, [leaves[0]!.leafHash]])
      expect((await eventsAfter(db, 0, { limit: 10, kinds: ['day_root'] })).length).toBe(1)
      expect(await refusal(sealDay(db, '19700101', leaves, 26 * HOUR))).not.toBeNull()
    })

    test('day files, subscribers, endpoints and both outboxes', async () => {
      const db = await fresh(dialect)
      const clock = new ManualClock(1_000_000)
      const files = new DayFiles(db)
      const file = { schema_version: 'rankings-1', date: '2026-11-23', periods: {} } as unknown as DayFile
      expect((await files.publish(file, 5)).published).toBe(true)
      expect((await files.publish(file, 6)).published).toBe(false)
      expect([await files.latest(), await files.count(), (await files.get('2026-11-23'))!.file.date]).toEqual(['2026-11-23', 1, '2026-11-23'])

      expect(await requestSubscription(db, 'a@example.org', 'en', 1)).toBe(true)
      await activateSubscriber(db, 'a@example.org', 2)
      expect(await requestSubscription(db, 'a@example.org', 'ko', 3)).toBe(false)
      expect(await activeSubscribers(db)).toEqual([{ email: 'a@example.org', lang: 'en' }])

      const mail = new Outbox(db, clock)
      expect(await mail.enqueue([{ kind: 'weekly', recipient: 'a@example.org', week: '2026-W48', lang: 'en' }])).toBe(1)
      expect(await mail.enqueue([{ kind: 'weekly', recipient: 'a@example.org', week: '2026-W48', lang: 'en' }])).toBe(0)
      const [row] = await mail.claim(10)
      expect(await mail.claim(10)).toEqual([]) // leased
      expect(await mail.failed(row!, 'refused', false)).toBe('retry')
      expect(await mail.counts()).toEqual({ pending: 1 })

      const ep = await addEndpoint(db, 1, { sink: 'webhook', url: 'https://example.org/hook', secret: 'whsec_x', telegramBotToken: null, telegramChatId: null, lang: 'en', kinds: [], strategies: [], coins: ['BTC'], statuses: [] })
      expect(ep.afterEventId).toBe(await latestEventId(db)) // the ranking file's event came before it
      await pauseEndpoint(db, ep.id, 500)
      await pauseEndpoint(db, ep.id, 400) // a pause is never shortened
      expect((await activeEndpoints(db))[0]!.pausedUntilMs).toBe(500)
      await db.tx(tx => appendEvents(tx, 7, [{ kind: 'signal', coin: 'BTC', payload: {} }, { kind: 'signal', coin: 'ETH', payload: {} }]))
      const push = new PushOutbox(db, clock, 'me')
      expect(await push.fanOut()).toBe(1) // the BTC event only
      expect(await push.fanOut()).toBe(0)
      expect(await push.cursor()).toBe(await latestEventId(db))
      clock.advance(1000)
      const claimed = await push.claim()
      expect(claimed.map(r => [r.endpointId, r.status, r.owner])).toEqual([[ep.id, 'sending', 'me']])
      expect(await push.claim()).toEqual([])
      await push.delivered(claimed[0]!, 200)
      expect((await PushOutbox.counts(db)).get(ep.id)).toEqual({ delivered: 1 })
      expect(await removeEndpoint(db, 2, ep.id, tx => PushOutbox.referenced(tx, ep.id))).toBe('disabled')
      expect(await activeEndpoints(db)).toEqual([])
    })

    test("another caller's write is never part of an open transaction, and a rolled-back one leaves nothing", async () => {
      const db = await fresh(dialect)
      let release!: () => void
      const held = new Promise<void>(r => (release = r))
      const tx = db.tx(async t => {
        await t.orm.insert(t.t.subscribers).values({ email: 'in-tx@example.org', lang: 'en', status: 'pending', createdAtMs: 1, updatedAtMs: 1 })
        await held
        throw new Error('rolled back')
      })
      await Bun.sleep(20)
      // a write by someone else while the transaction is open (SQLite: it waits for its end)
      const outside = db.orm.insert(db.t.subscribers).values({ email: 'outside@example.org', lang: 'en', status: 'pending', createdAtMs: 2, updatedAtMs: 2 }).then(() => 'written')
      await Bun.sleep(20)
      release()
      expect(await refusal(tx)).toBe('rolled back')
      expect(await outside).toBe('written')
      expect((await db.orm.select({ email: db.t.subscribers.email }).from(db.t.subscribers)).map(r => r.email)).toEqual(['outside@example.org'])
      if (dialect === 'sqlite') expect(await refusal(db.tx(() => db.tx(async () => 1)))).toContain('never opened inside another')
    })

    test('research runs: a ledger of trials in order and by objective, a run stopped once, the interrupted failed', async () => {
      const db = await fresh(dialect)
      await insertResearchRun(db, { id: 'sw-1', kind: 'sweep', client: 'c', request: { z: 1, a: 2 }, planned: 3, owner: 'me', nowMs: 1 })
      await insertResearchRun(db, { id: 'sw-2', kind: 'walk_forward', client: 'c', request: {}, planned: 1, owner: 'gone', nowMs: 1 })
      await markRunning(db, 'sw-1', 2)
      const trial = (k: number, objectiveValue: number | null) => ({ trial: k, fold: null, params: { sl: k }, metrics: { pf: objectiveValue }, totalTrades: 10 + k, objectiveValue, requestHash: `h${k}` })
      await appendTrials(db, 'sw-1', [trial(0, 1.5), trial(1, null), trial(2, 2.5)], 3, 3)
      expect(await trialCount(db, 'sw-1')).toBe(3)
      expect((await trialPage(db, 'sw-1', { offset: 0, limit: 10, sort: 'objective' })).map(t => t.trial)).toEqual([2, 0, 1])
      expect((await trialsAfter(db, 'sw-1', 0, 10)).map(t => t.trial)).toEqual([1, 2])
      expect((await bestTrial(db, 'sw-1'))!.trial).toBe(2)
      expect((await researchRun(db, 'sw-1'))!.finished).toBe(3)
      expect(await liveRuns(db)).toBe(2)
      expect(await failInterrupted(db, 'me', 4)).toBe(1) // sw-2's owner is gone
      expect(await stopRun(db, 'sw-1', { state: 'done', reason: null, result: { pbo: 0.1 }, nowMs: 5 })).toBe(true)
      expect(await stopRun(db, 'sw-1', { state: 'failed', reason: 'x', result: null, nowMs: 6 })).toBe(false)
      expect((await researchRun(db, 'sw-2'))!.state).toBe('failed')
      expect(await liveRuns(db)).toBe(0)
    })

    test('the result index keeps the newest requests only', async () => {
      const db = await fresh(dialect)
      const clock = new ManualClock(1)
      const store = new ResultStore({ db, clock, size: 0, indexMax: 3 })
      // Postgres prunes every PG_PRUNE_EVERY inserts: enough of them for one prune
      const n = dialect === 'sqlite' ? 10 : 64
      for (let k = 0; k < n; k++) {
        clock.advance(1)
        await store.remember({ hash: `h${k}`, spec: { kind: 'simulate', k } } as never, 'v')
      }
      const kept = (await db.orm.select({ hash: db.t.resultRequests.hash }).from(db.t.resultRequests)).map(r => r.hash).sort()
      expect(kept).toEqual([`h${n - 3}`, `h${n - 2}`, `h${n - 1}`].sort())
      expect(await store.storedRequest(`h${n - 1}`)).toEqual({ kind: 'simulate', k: n - 1 } as never)
      expect(await store.storedRequest('h0')).toBeNull()
    })
  })
}
