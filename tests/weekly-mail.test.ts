import { afterAll, describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { schema } from '../src/db'
import { Scheduler } from '../src/jobs/scheduler'
import { weeklyMailJob } from '../src/jobs/weekly-mail'
import { createLogger } from '../src/log'
import { isoWeek } from '../src/mail/iso-week'
import { runWeeklyMail } from '../src/mail/weekly'
import { listStrategies } from '../src/strategies/registry'
import { scoredSignalsSource } from '../src/mail/weekly-signals'
import { configurations, GROUPS, PERIODS, periodWindow, simulateBodyOf } from '../src/records/rankings/configurations'
import { cardRun } from '../src/modules/cards/card-run'
import { simulateSpec } from '../src/runs/simulate-spec'
import type { WeeklyDigest } from '../src/mail/weekly-digest'
import type { Direction } from '../src/engine/types'
import type { Timeframe } from '../src/market/timeframe'
import { DayFiles, type DayFile } from '../src/records/rankings/day-files'
import type { RankedRow } from '../src/records/rankings/rank'
import { makeHarness } from './helpers/harness'
import { parseMail } from './helpers/mime'
import { startSmtpSink } from './helpers/smtp-sink'

const MONDAY_0100 = Date.UTC(2026, 10, 23, 1) // 2026-W48
const smtp = await startSmtpSink()
const h = makeHarness({ nowMs: MONDAY_0100, env: { SMTP_URL: smtp.url, PUBLIC_URL: 'https://perpsim.example.org' } })
const mailer = h.deps.mailer!
afterAll(async () => {
  h.deps.mailer!.close()
  h.cleanup()
  await smtp.close()
})

/** a weekly_best3 configuration that is not among the ranking day's own rows */
const NOT_TODAY = { configuration_id: configurations().find(c => c.strategy === 'ichimoku-long' && c.timeframe === '4H')!.id, days_ranked: 5, mean_profit_factor: 1.5, mean_win_rate: 50 }
const EVIL = '<script>alert("x")</script> & Co'

function row(rank: number, over: Partial<RankedRow> = {}): RankedRow {
  return {
    configuration_id: `v1:bb-squeeze-short:1H:10-8-${40 + rank}`,
    strategy: 'bb-squeeze-short',
    name_en: 'BB Squeeze SHORT',
    name_ko: '볼린저 스퀴즈 숏',
    direction: 'short',
    status: 'testing',
    timeframe: '1H',
    sl_pct: 10,
    tp_pct: 8,
    max_bars: 40 + rank,
    total_trades: 30 + rank,
    win_rate: 60 - rank,
    profit_factor: 2 - rank / 10,
    pf_capped: false,
    total_return_pct: 50 - rank,
    sharpe_ratio: 1,
    max_drawdown_pct: 10 + rank,
    rank,
    eligible: true,
    previous_rank: null,
    previous_streak: null,
    rank_change: null,
    streak: 1,
    ...over,
  }
}

function dayFile(date: string): DayFile {
  const dateMs = Date.parse(`${date}T00:00:00Z`)
  const rows = [row(1, { name_en: EVIL }), row(2), row(3, { ruined_at: '2026-11-10T05:00:00Z', max_drawdown_pct: 100 }), row(4)]
  const periods = Object.fromEntries(
    PERIODS.map(p => [
      p,
      {
        ...periodWindow(dateMs, p),
        groups: Object.fromEntries(
          GROUPS.map(g => [g, { symbols: [], top_n_requested: 50, eligible_universe: 50, rows, weekly_best3: [...rows.slice(1, 3).map(r => ({ configuration_id: r.configuration_id, days_ranked: 7, mean_profit_factor: r.profit_factor, mean_win_rate: r.win_rate })), NOT_TODAY] }]),
        ),
      },
    ]),
  ) as unknown as DayFile['periods']
  return { schema_version: 'rankings-1', rules_version: 'v1', date, generated_at: `${date}T00:30:00Z`, written_by: 'schedule', engine_version: 'test', data_version: 'test', previous_date: null, rules: {}, periods }
}

const addSubscriber = async (email: string, lang: string, status: string) =>
  await h.deps.db.orm.insert(schema.subscribers).values({ email, lang, status, createdAtMs: 0, updatedAtMs: 0 })

describe('the weekly mail', () => {
  test('with no active subscriber does nothing, and freezes no digest for the week', async () => {
    const r = await runWeeklyMail({ db: h.deps.db, clock: h.clock, mailer }, MONDAY_0100)
    expect(r).toMatchObject({ subscribers: 0, queued: 0, delivery: null })
    expect((await h.deps.db.orm.select().from(schema.weeklyDigests))).toEqual([])
  })

  test('goes to every active subscriber in their language, with HTML and text parts and the list headers', async () => {
    await new DayFiles(h.deps.db).publish(dayFile('2026-11-23'), MONDAY_0100)
    await addSubscriber('en@example.org', 'en', 'active')
    await addSubscriber('ko@example.kr', 'ko', 'active')
    await addSubscriber('pending@example.org', 'en', 'pending')
    await addSubscriber('left@example.org', 'en', 'unsubscribed')
    const r = await runWeeklyMail({ db: h.deps.db, clock: h.clock, mailer }, MONDAY_0100)
    expect(r.week).toBe('2026-W48')
    expect(r.subscribers).toBe(2)
    expect(r.delivery!.sent).toBe(2)
    expect(smtp.received.map(m => m.to[0]).sort()).toEqual(['en@example.org', 'ko@example.kr'])

    const en = parseMail(smtp.received.find(m => m.to[0] === 'en@example.org')!.raw)
    expect(en.headers.get('content-type')).toContain('multipart/alternative')
    expect(en.text).not.toBeNull()
    expect(en.html).not.toBeNull()
    const listUnsub = en.headers.get('list-unsubscribe')!
    expect(listUnsub).toMatch(/^<https:\/\/perpsim\.example\.org\/api\/unsubscribe\?email=en%40example\.org&token=[0-9]+\.[0-9a-f]{64}>/)
    expect(en.headers.get('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click')
    // real figures from the day file, share links for each row
    expect(en.text).toContain("This week's best configurations")
    expect(en.text).toContain('Top 3 over the last 30 days')
    expect(en.text).toContain('PF 1.90')
    expect(en.text).toContain('https://perpsim.example.org/share?preset=bb-squeeze-short&dir=short&sl=10&tp=8&topN=50&lev=1&fee=0.05')
    expect(en.text).toContain('Verified: ')
    // weekly_best3: what put each there, and the 7-day figures where the configuration is ranked that day
    expect(en.text).toContain('1. BB Squeeze SHORT, 1H · SL 10% · TP 8% · max 42 bars: ranked on 7 of the last 7 days with mean PF 1.80 and mean win rate 58.0%; win rate 58.0%, PF 1.80, +48.0%, 32 trades')
    expect(en.text).toMatch(/3\. Ichimoku Cloud LONG, 4H · SL \d+% · TP \d+% · max \d+ bars: ranked on 5 of the last 7 days with mean PF 1\.50 and mean win rate 50\.0%; not ranked on the ranking day itself/)
    expect(en.html).toContain('Days ranked (of 7)')
    // a ruined run says on which day its equity reached zero, in both parts
    expect(en.text).toMatch(/2\. BB Squeeze SHORT, 1H · SL 10% · TP 8% · max 43 bars: [^\n]*; Ruined on 2026-11-10: the equity reached zero\r?\n/)
    expect(en.html).toContain('Ruined on 2026-11-10: the equity reached zero')
    expect(en.text!.match(/Ruined on/g)!.length).toBe(2) // row 3 in both lists, no other row
    // no scored signals on this service: the section says so
    expect(en.text).toContain('Scored signals are not available')
    // escaped everywhere it lands in HTML; plain in the text part
    expect(en.html).not.toContain('<script>')
    expect(en.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co')
    expect(en.text).toContain(EVIL)

    const ko = parseMail(smtp.received.find(m => m.to[0] === 'ko@example.kr')!.raw)
    expect(ko.text).toContain('이번 주 최고의 설정')
    expect(ko.text).toContain('볼린저 스퀴즈 숏')
    expect(ko.text).toContain('lang=ko')
    expect(ko.text).toContain('2026-11-10 파산')
  })

  test("a row's /share link recomputes exactly the ranking's run (the same run spec)", async () => {
    const digest = (await h.deps.db.orm.select().from(schema.weeklyDigests).where(eq(schema.weeklyDigests.week, '2026-W48')))[0]!.payload as WeeklyDigest
    const row = dayFile('2026-11-23').periods['30d'].groups.top50.rows[1]
    const shared = digest.top30d.find(r => r.maxBars === row.max_bars)!.share
    const settings = { slPct: +shared.sl, tpPct: +shared.tp, leverage: +shared.lev, feePct: +shared.fee, topN: +shared.topN, from: shared.from, to: shared.to, timeframe: shared.tf as Timeframe, maxBars: +shared.bars }
    const card = cardRun(shared.preset, shared.dir as Direction, 'long', settings).spec
    const configuration = { id: row.configuration_id, strategy: row.strategy, name: row.name_en, direction: row.direction, status: row.status, timeframe: row.timeframe, sl_pct: row.sl_pct, tp_pct: row.tp_pct, max_bars: row.max_bars }
    expect(card).toEqual(simulateSpec(simulateBodyOf(configuration, Date.UTC(2026, 10, 23), '30d', 'top50')))
  })

  test('its List-Unsubscribe URL takes the one-click POST', async () => {
    const en = parseMail(smtp.received.find(m => m.to[0] === 'en@example.org')!.raw)
    const url = new URL(/^<([^>]+)>/.exec(en.headers.get('list-unsubscribe')!)![1])
    const res = await h.req(`${url.pathname}${url.search}`, { method: 'POST', body: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(res.status).toBe(200)
    expect((await h.deps.db.orm.select().from(schema.subscribers).where(eq(schema.subscribers.email, 'en@example.org')))[0]!.status).toBe('unsubscribed')
  })

  test('a rerun of the same week queues and sends nothing again', async () => {
    const before = smtp.received.length
    const r = await runWeeklyMail({ db: h.deps.db, clock: h.clock, mailer }, MONDAY_0100 + 3_600_000)
    expect(r.queued).toBe(0)
    expect(smtp.received.length).toBe(before)
  })

  test('a dry run shows the mail and stores or sends nothing', async () => {
    const nextWeek = MONDAY_0100 + 7 * 86_400_000
    const r = await runWeeklyMail({ db: h.deps.db, clock: h.clock, mailer }, nextWeek, { dryRun: true })
    expect(r.samples!.en.text).toContain("This week's best configurations")
    expect(r.samples!.ko.subject).toContain('주간')
    expect((await h.deps.db.orm.select().from(schema.weeklyDigests).where(eq(schema.weeklyDigests.week, isoWeek(nextWeek))))[0]).toBeUndefined()
    expect((await h.deps.db.orm.select().from(schema.mailOutbox).where(eq(schema.mailOutbox.week, isoWeek(nextWeek))))).toEqual([])
  })

  test("lists the verified strategies' signals closed during the week: count, win rate, net", async () => {
    const DAY = 86_400_000
    const signal = async (id: string, strategy: string, exitMs: number | null, status: string, pnlPct: number) => {
      await h.deps.db.orm.insert(schema.signals).values({ id, strategy, strategyName: strategy, status: 'verified', coin: 'BTCUSDT', direction: 'long', timeframe: '1H', signalBarMs: exitMs ?? 0, signalTimeMs: exitMs ?? 0, entryPrice: 100, slPct: 5, tpPct: 10, maxBars: 48, publishedAtMs: 0, backfill: false })
      await h.deps.db.orm.insert(schema.scoredSignals).values({ signalId: id, engine: 'reference-engine-v2', status, entryTimeMs: 0, entryPrice: 100, pnlPct, exitTimeMs: exitMs, feeFrac: 0.0005, leverage: 1, mmrFrac: 0.005, slPct: 5, tpPct: 10, maxBars: 48, fundingSource: 'real', markedThroughMs: 0, updatedAtMs: 0, finalizedAtMs: exitMs })
    }
    const monday = Date.UTC(2026, 11, 7, 1) // 2026-W50; the week before: Nov 30 – Dec 6
    await signal('a', 'ichimoku-long', Date.UTC(2026, 11, 1, 5), 'tp', 9.5)
    await signal('b', 'ichimoku-long', Date.UTC(2026, 11, 3, 5), 'sl', -5.25)
    await signal('c', 'ichimoku-long', Date.UTC(2026, 11, 6, 23), 'tp', 9.5)
    await signal('d', 'ichimoku-long', Date.UTC(2026, 10, 29, 23), 'tp', 9.5) // the week before: not counted
    await signal('e', 'ichimoku-long', Date.UTC(2026, 11, 7, 0, 30), 'tp', 9.5) // after the week: not counted
    await signal('f', 'ichimoku-long', null, 'open', 3) // no result yet
    await signal('g', 'bb-squeeze-long', Date.UTC(2026, 11, 2), 'tp', 8) // not a verified strategy
    const rows = (await scoredSignalsSource(h.deps.db)(monday - 7 * DAY - 3_600_000, monday - 3_600_000))!
    // every verified strategy of the registry, each with its own signals only
    expect(rows.map(r => r.strategyId)).toEqual(listStrategies().filter(s => s.status === 'verified').map(s => s.id))
    const ichimoku = rows.find(r => r.strategyId === 'ichimoku-long')!
    expect(ichimoku.count).toBe(3)
    expect(ichimoku.winRatePct).toBeCloseTo(200 / 3, 10)
    expect(ichimoku.netPct).toBeCloseTo(13.75, 10)
    expect(rows.filter(r => r.strategyId !== 'ichimoku-long').every(r => r.count === 0)).toBe(true)
    const r = await runWeeklyMail({ db: h.deps.db, clock: h.clock, mailer, signals: scoredSignalsSource(h.deps.db) }, monday, { dryRun: true })
    expect(r.samples!.en.text).toContain('Verified strategies: scored signals of the week')
    expect(r.samples!.en.text).toContain('- Ichimoku Cloud LONG: 3 signals closed, win rate 66.7%, net +13.8%')
    expect(r.samples!.en.text).not.toContain('not available')
  })

  test('runs on the scheduler on Monday at 01:00 UTC', async () => {
    await addSubscriber('sched@example.org', 'en', 'active')
    const scheduler = new Scheduler({ clock: h.clock, db: h.deps.db, log: createLogger('silent'), timers: false })
    scheduler.register(weeklyMailJob({ db: h.deps.db, clock: h.clock, mailer }))
    h.clock.set(Date.UTC(2026, 10, 30, 0, 59)) // Monday 2026-11-30, a minute early
    scheduler.start()
    scheduler.tick()
    await scheduler.idle()
    expect(smtp.received.some(m => m.to[0] === 'sched@example.org')).toBe(false)
    h.clock.set(Date.UTC(2026, 10, 30, 1, 0))
    scheduler.tick()
    await scheduler.idle()
    expect(smtp.received.filter(m => m.to[0] === 'sched@example.org').length).toBe(1)
    await scheduler.stop()
  })
})

describe('weekly_digests', () => {
  test('the database refuses to rewrite or delete a stored digest, and a REPLACE keeps the first', async () => {
    const db = h.deps.db
    await db.rows(sql`INSERT INTO weekly_digests (week, payload, created_at_ms) VALUES ('1999-W01', '{"a":1}', 0)`)
    await expect(db.rows(sql.raw(`UPDATE weekly_digests SET payload = '{"a":2}' WHERE week = '1999-W01'`))).rejects.toThrow(/append-only/)
    await expect(db.rows(sql.raw(`DELETE FROM weekly_digests WHERE week = '1999-W01'`))).rejects.toThrow(/append-only/)
    await db.rows(sql`INSERT OR REPLACE INTO weekly_digests (week, payload, created_at_ms) VALUES ('1999-W01', '{"a":3}', 1)`)
    expect(await db.rows(sql`SELECT payload FROM weekly_digests WHERE week = '1999-W01'`)).toEqual([{ payload: '{"a":1}' }])
  })
})
