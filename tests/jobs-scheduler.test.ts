/**
 * The scheduler on a ManualClock: simulated days in milliseconds, slots claimed once
 * (also by two schedulers sharing one database), missed slots caught up at start-up in
 * the background, a failed run recorded and retried when the next slot comes due.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { hostname } from 'node:os'
import { ManualClock, systemClock } from '../src/clock'
import { openDatabase, openDb, type Db } from '../src/db'
import { JobRuns } from '../src/records/job-runs'
import { LEASE_MS, Scheduler, STALE_RUN_MS, type JobDefinition } from '../src/jobs/scheduler'
import { createLogger } from '../src/log'
import { testPostgres } from './helpers/postgres'

const DAY = 86_400_000

// every case runs on SQLite and on Postgres (a fresh database each; skipped with the reason
// printed when no Postgres can be had)
const pg = await testPostgres('the scheduler and job_runs')
const opened: Db[] = []
afterAll(async () => {
  for (const db of opened) await db.close()
  await pg?.cleanup()
}, 60_000)
const log = createLogger('silent')
const at = (iso: string) => Date.parse(iso)
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

function dailyJob(ran: string[], over: Partial<JobDefinition> = {}): JobDefinition {
  return {
    name: 'daily',
    cron: '30 0 * * *',
    description: 'a test job at 00:30 UTC',
    slotOf: ms => `daily:${dateOf(ms)}`,
    run: async ctx => {
      ran.push(ctx.slot)
      await ctx.yield()
      return { counts: { n: ran.length } }
    },
    ...over,
  }
}

for (const dialect of ['sqlite', 'postgres'] as const) {
const fresh = async (): Promise<Db> => {
  const db = dialect === 'sqlite' ? openDb(':memory:') : await openDatabase(await pg!.another())
  opened.push(db)
  return db
}

describe.skipIf(dialect === 'postgres' && !pg)(`scheduler (${dialect})`, () => {
  test('croner arithmetic in UTC: the slots of a day job', async () => {
    const s = new Scheduler({ clock: new ManualClock(0), db: await fresh(), log, timers: false })
    s.register(dailyJob([]))
    expect(new Date(s.nextSlot('daily', at('2026-11-25T00:31:00Z'))!).toISOString()).toBe('2026-11-26T00:30:00.000Z')
    expect(new Date(s.nextSlot('daily', at('2026-11-25T00:29:59.999Z'))!).toISOString()).toBe('2026-11-25T00:30:00.000Z')
    expect(s.slotsBetween('daily', at('2026-11-20T00:00:00Z'), at('2026-11-23T00:30:00Z')).map(dateOf)).toEqual(['2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23'])
  })

  test('a week of simulated days: each slot runs once, a repeated tick claims nothing twice', async () => {
    const clock = new ManualClock(at('2026-11-18T12:00:00Z'))
    const db = await fresh()
    const ran: string[] = []
    const s = new Scheduler({ clock, db, log, timers: false })
    s.register(dailyJob(ran))
    s.start()
    await s.idle()
    expect(ran).toEqual([]) // no catch-up window: nothing from before the start
    for (let d = 0; d < 7; d++) {
      clock.advance(DAY)
      s.tick()
      s.tick() // a double timer
      await s.idle()
    }
    expect(ran).toEqual(['2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25'].map(d => `daily:${d}`))
    const rows = (await new JobRuns(db).recent('daily', 20))
    expect(rows.length).toBe(7)
    expect(rows.every(r => r.outcome === 'ok' && r.attempt === 1 && r.trigger === 'schedule' && r.error === null)).toBe(true)
    expect(rows[0].slot).toBe('daily:2026-11-25')
    expect(rows[0].slotMs).toBe(at('2026-11-25T00:30:00Z'))
    expect(rows[0].startedAtMs).toBe(at('2026-11-25T12:00:00Z'))
    expect(rows[0].counts).toEqual({ n: 7 })
    await s.stop()
  })

  test('two schedulers on one database (two processes): every slot runs exactly once', async () => {
    const clock = new ManualClock(at('2026-11-20T00:00:00Z'))
    const db = await fresh()
    const ranA: string[] = [], ranB: string[] = []
    const a = new Scheduler({ clock, db, log, timers: false })
    const b = new Scheduler({ clock, db, log, timers: false })
    a.register(dailyJob(ranA))
    b.register(dailyJob(ranB))
    a.start()
    b.start()
    for (let d = 0; d < 4; d++) {
      clock.advance(DAY)
      a.tick()
      b.tick()
      await Promise.all([a.idle(), b.idle()])
    }
    expect([...ranA, ...ranB].sort()).toEqual(['daily:2026-11-20', 'daily:2026-11-21', 'daily:2026-11-22', 'daily:2026-11-23'])
    expect((await new JobRuns(db).recent('daily', 20)).length).toBe(4)
  })

  test('missed slots are caught up at start-up, oldest first, in the background', async () => {
    const clock = new ManualClock(at('2026-11-20T01:00:00Z'))
    const db = await fresh()
    const ran: string[] = []
    const first = new Scheduler({ clock, db, log, timers: false })
    first.register(dailyJob(ran, { catchUpMs: 30 * DAY }))
    first.start()
    await first.idle()
    // a fresh database: the whole window (30 slots, ending with today's) runs
    expect(ran.length).toBe(30)
    expect(ran[0]).toBe('daily:2026-10-22')
    expect(ran[29]).toBe('daily:2026-11-20')
    await first.stop()
    // the service is down for three days and comes back at 12:00
    clock.set(at('2026-11-23T12:00:00Z'))
    ran.length = 0
    let release!: () => void
    const gate = new Promise<void>(r => (release = r))
    const second = new Scheduler({ clock, db, log, timers: false })
    second.register(dailyJob(ran, {
      catchUpMs: 30 * DAY,
      run: async ctx => {
        await gate
        ran.push(ctx.slot)
      },
    }))
    second.start() // returns while the catch-up waits on the gate
    expect(ran).toEqual([])
    release()
    await second.idle()
    expect(ran).toEqual(['daily:2026-11-21', 'daily:2026-11-22', 'daily:2026-11-23'])
    expect((await new JobRuns(db).bySlot('daily:2026-11-21'))[0].trigger).toBe('catch-up')
  })

  test('a failed run is recorded with its error and retried when the next slot comes due', async () => {
    const clock = new ManualClock(at('2026-11-20T00:00:00Z'))
    const db = await fresh()
    const ran: string[] = []
    let failOn: string | null = 'daily:2026-11-20'
    const s = new Scheduler({ clock, db, log, timers: false })
    s.register(dailyJob(ran, {
      catchUpMs: 7 * DAY,
      run: async ctx => {
        ran.push(`${ctx.slot}#${ctx.attempt}`)
        if (ctx.slot === failOn) throw new Error('upstream gone')
      },
    }))
    s.start()
    await s.idle()
    ran.length = 0 // the catch-up of the empty window is tested above
    clock.set(at('2026-11-20T00:30:00Z'))
    s.tick()
    await s.idle()
    const failed = (await new JobRuns(db).bySlot('daily:2026-11-20'))
    expect(failed.length).toBe(1)
    expect(failed[0].outcome).toBe('failed')
    expect(failed[0].error).toContain('upstream gone')
    expect(failed[0].finishedAtMs).toBe(at('2026-11-20T00:30:00Z'))
    failOn = null
    clock.set(at('2026-11-21T00:30:00Z'))
    s.tick()
    await s.idle()
    expect(ran).toEqual(['daily:2026-11-20#1', 'daily:2026-11-20#2', 'daily:2026-11-21#1'])
    const retried = (await new JobRuns(db).bySlot('daily:2026-11-20'))
    expect(retried.map(r => [r.attempt, r.outcome, r.trigger])).toEqual([[1, 'failed', 'schedule'], [2, 'ok', 'catch-up']])
    // done slots are not run again, by any later tick
    clock.advance(60_000)
    s.tick()
    await s.idle()
    expect(ran.length).toBe(3)
  })

  test('retryAfterMs: a failed slot is tried again that long after, before the next slot', async () => {
    const clock = new ManualClock(at('2026-11-20T00:00:00Z'))
    const db = await fresh()
    const ran: string[] = []
    let dataArrived = false
    const s = new Scheduler({ clock, db, log, timers: false })
    s.register(dailyJob(ran, {
      retryAfterMs: 3_600_000,
      run: async ctx => {
        ran.push(`${ctx.slot}#${ctx.attempt}:${ctx.trigger}`)
        if (!dataArrived) throw new Error('candles not there yet')
      },
    }))
    s.start()
    clock.set(at('2026-11-20T00:30:00Z'))
    s.tick()
    await s.idle()
    clock.set(at('2026-11-20T01:29:59Z'))
    s.tick()
    await s.idle()
    expect(ran).toEqual(['daily:2026-11-20#1:schedule']) // not before the hour
    clock.set(at('2026-11-20T01:30:00Z'))
    s.tick()
    await s.idle()
    dataArrived = true
    clock.set(at('2026-11-20T02:30:00Z'))
    s.tick()
    await s.idle()
    clock.set(at('2026-11-20T05:00:00Z'))
    s.tick()
    await s.idle()
    expect(ran).toEqual(['daily:2026-11-20#1:schedule', 'daily:2026-11-20#2:retry', 'daily:2026-11-20#3:retry'])
    expect((await new JobRuns(db).bySlot('daily:2026-11-20')).map(r => r.outcome)).toEqual(['failed', 'failed', 'ok'])
  })

  test('skipped runs are recorded with their reason; a manual run takes the next attempt', async () => {
    const clock = new ManualClock(at('2026-11-20T00:30:00Z'))
    const db = await fresh()
    const s = new Scheduler({ clock, db, log, timers: false })
    s.register(dailyJob([], { run: async () => ({ skipped: 'nothing new' }) }))
    const first = await s.runSlot('daily', at('2026-11-20T00:30:00Z'), 'schedule')
    expect(first!.outcome).toBe('skipped')
    expect(first!.error).toBe('nothing new')
    expect(await s.runSlot('daily', at('2026-11-20T00:30:00Z'), 'schedule')).toBeNull() // done
    const manual = await s.runSlot('daily', at('2026-11-20T00:30:00Z'), 'manual')
    expect(manual!.attempt).toBe(2)
    expect(manual!.trigger).toBe('manual')
  })

  test('stop() ends a long run at its next yield; the run is recorded as failed', async () => {
    const clock = new ManualClock(at('2026-11-20T00:30:00Z'))
    const db = await fresh()
    const s = new Scheduler({ clock, db, log, timers: false })
    let steps = 0
    s.register(dailyJob([], {
      catchUpMs: 60_000,
      run: async ctx => {
        for (;;) {
          steps++
          await ctx.yield()
        }
      },
    }))
    s.start()
    // the run is under way (its claim is a round trip or more on Postgres)
    while (steps === 0) await Bun.sleep(1)
    await s.stop()
    expect(steps).toBeGreaterThan(0)
    const row = (await new JobRuns(db).bySlot('daily:2026-11-20'))[0]
    expect(row.outcome).toBe('failed')
    expect(row.error).toContain('shut down')
  })

  test('with timers on, the scheduler wakes itself for each slot (real clock, a job every second)', async () => {
    const db = await fresh()
    const s = new Scheduler({ clock: systemClock, db, log })
    const ran: string[] = []
    s.register({ name: 'tick', cron: '* * * * * *', description: 'every second', run: async ctx => void ran.push(ctx.slot) })
    s.start()
    await new Promise(r => setTimeout(r, 2600))
    await s.stop()
    expect(ran.length).toBeGreaterThanOrEqual(2)
    expect(new Set(ran).size).toBe(ran.length)
    expect(ran.every(x => /^tick:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/.test(x) || /^tick:\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(x))).toBe(true)
  })

  test('an unknown job name is an error naming the known ones', async () => {
    const s = new Scheduler({ clock: new ManualClock(0), db: await fresh(), log, timers: false })
    s.register(dailyJob([]))
    expect(() => s.slotOf('nope', 0)).toThrow("unknown job 'nope'; known jobs: daily")
    expect(() => s.register(dailyJob([]))).toThrow('registered twice')
  })
})

/**
 * A run killed with its process (SIGKILL, OOM, power loss) leaves its job_runs row
 * unfinished. Its slot must run again as soon as the runner is known dead, and never while
 * the runner lives (two schedulers may share one database).
 */
describe.skipIf(dialect === 'postgres' && !pg)(`unfinished runs: taken over when their runner died, never while it lives (${dialect})`, () => {
  const SLOT_MS = at('2026-11-20T00:30:00Z')
  const SLOT = 'daily:2026-11-20'
  /** the row a process writes when it claims the slot, left as it was when the process died */
  async function leftUnfinished(db: Db, owner: { host: string; pid: number; instance: string } | null, heartbeatMs: number | null, startedAtMs = SLOT_MS) {
    await db.orm
      .insert(db.t.jobRuns)
      .values({ job: 'daily', slot: SLOT, attempt: 1, trigger: 'schedule', slotMs: SLOT_MS, startedAtMs, ownerHost: owner?.host ?? null, ownerPid: owner?.pid ?? null, ownerInstance: owner?.instance ?? null, heartbeatMs })
  }
  /** a pid that no process on this host has now: a child's, after it exited */
  const deadPid = () => Bun.spawnSync(['true']).pid

  test('killed on this host: the restart re-runs the slot at once and marks the dead row abandoned', async () => {
    const clock = new ManualClock(at('2026-11-20T00:35:00Z'))
    const db = await fresh()
    // killed at 00:34:30, 30 s after its last heartbeat: well inside the lease
    await leftUnfinished(db, { host: hostname(), pid: deadPid(), instance: 'crashed' }, at('2026-11-20T00:34:00Z'))
    const ran: string[] = []
    const s = new Scheduler({ clock, db, log, timers: false })
    s.register(dailyJob(ran, { catchUpMs: DAY }))
    s.start()
    await s.idle()
    expect(ran).toEqual([SLOT])
    const [dead, again] = (await new JobRuns(db).bySlot(SLOT))
    expect(dead.outcome).toBe('failed')
    expect(dead.error).toStartWith('abandoned: the process that ran it died')
    expect(dead.finishedAtMs).toBe(clock.now())
    expect([again.attempt, again.trigger, again.outcome, again.ownerPid, again.ownerInstance]).toEqual([2, 'catch-up', 'ok', process.pid, s.owner.instance])
  })

  test('at start-up a dead run outside the catch-up window is recorded as abandoned, and not run again', async () => {
    const clock = new ManualClock(at('2026-11-20T00:35:00Z'))
    const db = await fresh()
    await leftUnfinished(db, { host: hostname(), pid: deadPid(), instance: 'crashed' }, at('2026-11-20T00:34:00Z'))
    const ran: string[] = []
    const s = new Scheduler({ clock, db, log, timers: false })
    s.register(dailyJob(ran)) // no catch-up window
    s.start()
    await s.idle()
    expect(ran).toEqual([])
    expect((await new JobRuns(db).bySlot(SLOT)).map(r => [r.outcome, r.error?.slice(0, 9)])).toEqual([['failed', 'abandoned']])
    expect((await s.list())[0].last!.outcome).toBe('failed') // `jobs list` no longer shows it running
  })

  test('a row of this very pid under an instance id no live scheduler has (pid reused after a restart) is abandoned at once', async () => {
    const clock = new ManualClock(at('2026-11-20T00:31:00Z'))
    const db = await fresh()
    await leftUnfinished(db, { host: hostname(), pid: process.pid, instance: 'an earlier process with this pid' }, clock.now())
    const s = new Scheduler({ clock, db, log, timers: false })
    s.register(dailyJob([]))
    const row = await s.runSlot('daily', SLOT_MS, 'schedule')
    expect(row!.attempt).toBe(2)
    expect((await new JobRuns(db).bySlot(SLOT))[0].error).toStartWith('abandoned:')
  })

  test('a run in progress in a second live scheduler on the same database is not taken over, its heartbeat follows the clock', async () => {
    const clock = new ManualClock(SLOT_MS)
    const db = await fresh()
    let release!: () => void
    const gate = new Promise<void>(r => (release = r))
    const steps: string[] = []
    const a = new Scheduler({ clock, db, log, timers: false })
    a.register(dailyJob([], {
      run: async ctx => {
        await ctx.yield()
        steps.push('a started')
        await gate
        await ctx.yield() // a step after the clock moved on: the heartbeat is refreshed
        steps.push('a yielded')
        await gate
      },
    }))
    const b = new Scheduler({ clock, db, log, timers: false })
    const ranB: string[] = []
    b.register(dailyJob(ranB, { catchUpMs: DAY }))
    const running = a.runSlot('daily', SLOT_MS, 'schedule')
    while (steps.length === 0) await Bun.sleep(1)
    clock.advance(60_000)
    expect(await b.runSlot('daily', SLOT_MS, 'schedule')).toBeNull()
    b.start() // the start-up catch-up finds the slot held too
    await b.idle()
    expect(ranB).toEqual([])
    // minutes later a is still busy and has not yielded: known alive in this process all the same
    clock.advance(LEASE_MS + 60_000)
    expect(await b.runSlot('daily', SLOT_MS, 'catch-up')).toBeNull()
    release()
    await running
    expect(steps).toEqual(['a started', 'a yielded'])
    const rows = (await new JobRuns(db).bySlot(SLOT))
    expect(rows.map(r => [r.attempt, r.outcome, r.ownerInstance])).toEqual([[1, 'ok', a.owner.instance]])
    expect(rows[0].heartbeatMs).toBe(SLOT_MS + LEASE_MS + 120_000) // beaten at its yield after the clock moved
    expect(ranB).toEqual([])
  })

  test('another host\'s run is left alone while its heartbeat is fresh and taken over once it is older than the lease', async () => {
    const clock = new ManualClock(at('2026-11-20T00:32:00Z'))
    const db = await fresh()
    await leftUnfinished(db, { host: 'other-host.invalid', pid: process.pid, instance: 'elsewhere' }, at('2026-11-20T00:31:00Z'))
    const ran: string[] = []
    const s = new Scheduler({ clock, db, log, timers: false })
    s.register(dailyJob(ran, { catchUpMs: DAY }))
    s.start()
    await s.idle()
    expect(ran).toEqual([]) // held: the other host ran it a minute ago
    expect((await new JobRuns(db).bySlot(SLOT)).map(r => r.outcome)).toEqual([null])
    // the other host stops beating; once the lease from its last beat ran out, the slot is looked at again
    clock.set(at('2026-11-20T00:31:00Z') + LEASE_MS)
    s.tick()
    await s.idle()
    expect(ran).toEqual([])
    clock.advance(1)
    s.tick()
    await s.idle()
    expect(ran).toEqual([SLOT])
    const [dead, again] = (await new JobRuns(db).bySlot(SLOT))
    expect(dead.error).toContain('abandoned: the process that ran it died')
    expect(dead.error).toContain(`pid ${process.pid} on other-host.invalid`)
    expect([again.attempt, again.trigger, again.outcome]).toEqual([2, 'retry', 'ok'])
  })

  test('a live pid on this host (perhaps reused by another program) counts as alive until its heartbeat is older than the lease', async () => {
    const clock = new ManualClock(at('2026-11-20T00:32:00Z'))
    const db = await fresh()
    await leftUnfinished(db, { host: hostname(), pid: process.ppid, instance: 'parent' }, at('2026-11-20T00:31:00Z'))
    const s = new Scheduler({ clock, db, log, timers: false })
    s.register(dailyJob([]))
    expect(await s.runSlot('daily', SLOT_MS, 'catch-up')).toBeNull()
    clock.set(at('2026-11-20T00:31:00Z') + LEASE_MS + 1)
    expect((await s.runSlot('daily', SLOT_MS, 'catch-up'))!.attempt).toBe(2)
  })

  test('a row written before owners existed (no heartbeat) is a run in progress for STALE_RUN_MS, as before', async () => {
    const clock = new ManualClock(at('2026-11-20T00:35:00Z'))
    const db = await fresh()
    await leftUnfinished(db, null, null)
    const ran: string[] = []
    const s = new Scheduler({ clock, db, log, timers: false })
    s.register(dailyJob(ran, { catchUpMs: DAY }))
    s.start()
    await s.idle()
    expect(ran).toEqual([])
    expect(await s.runSlot('daily', SLOT_MS, 'catch-up')).toBeNull()
    clock.set(SLOT_MS + STALE_RUN_MS)
    expect(await s.runSlot('daily', SLOT_MS, 'catch-up')).toBeNull()
    clock.advance(1)
    const row = await s.runSlot('daily', SLOT_MS, 'catch-up')
    expect(row!.attempt).toBe(2)
    expect(ran).toEqual([SLOT])
    expect((await new JobRuns(db).bySlot(SLOT))[0].error).toContain('abandoned: the process that ran it died (an unknown process')
  })

  test('a manual run does not wait for a live holder, and still marks dead rows abandoned', async () => {
    const clock = new ManualClock(at('2026-11-20T00:32:00Z'))
    const db = await fresh()
    await leftUnfinished(db, { host: 'other-host.invalid', pid: 1, instance: 'elsewhere' }, clock.now())
    const s = new Scheduler({ clock, db, log, timers: false })
    s.register(dailyJob([]))
    expect((await s.runSlot('daily', SLOT_MS, 'manual'))!.attempt).toBe(2)
    expect((await new JobRuns(db).bySlot(SLOT))[0].outcome).toBeNull() // alive elsewhere: left running
    await db.orm.insert(db.t.jobRuns).values({ job: 'daily', slot: SLOT, attempt: 3, trigger: 'manual', slotMs: SLOT_MS, startedAtMs: clock.now(), ownerHost: hostname(), ownerPid: deadPid(), ownerInstance: 'cli', heartbeatMs: clock.now() })
    expect((await s.runSlot('daily', SLOT_MS, 'manual'))!.attempt).toBe(4)
    expect((await new JobRuns(db).bySlot(SLOT)).map(r => r.outcome)).toEqual([null, 'ok', 'failed', 'ok'])
  })
})
}
