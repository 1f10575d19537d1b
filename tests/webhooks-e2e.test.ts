/**
 * End to end from real events (docs/events.md "Webhooks"): the live steps record signals,
 * score them, trade them on paper and seal days, and a ranking day file is published; each
 * writes its events, and the push delivery sends every one to a signed webhook exactly
 * once (the body's data is the record as its route serves it), and the Telegram and
 * Discord sinks' messages link to records the API serves: the proof of a scored result
 * once its day is sealed, a sealed day's root, the ranking's first row on /share.
 */
import { afterAll, beforeAll, describe, expect, setSystemTime, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { createLogger } from '../src/log'
import { Pusher } from '../src/push/pusher'
import { eventsAfter, type EventRow } from '../src/records/events'
import { getStrategy } from '../src/strategies/registry'
import { DAY_MS, HOUR_MS, isoInstant } from '../src/time'
import { startDiscordFake } from './helpers/discord-fake'
import { fillWalkUniverse, makeHarness } from './helpers/harness'
import { publishPicksDay, rankedRegistryRow, runLiveHours } from './helpers/live-hours'
import { startTelegramFake } from './helpers/telegram-fake'
import { startWebhookReceiver } from './helpers/webhook-receiver'

const T0 = Date.UTC(2025, 0, 1)
const START = T0 + 30 * DAY_MS + 5 * HOUR_MS
const END = START + 3 * DAY_MS
const KEY = 'k'
const BASE = 'https://perpsim.example.org'
const TOKEN = '7012345678:AAH3-telegram-token-for-tests_xyz'
const receiver = startWebhookReceiver()
const telegram = startTelegramFake({ tokens: [TOKEN], chats: [42] })
const clockRef = { now: () => 0 }
const discord = startDiscordFake({ webhooks: { '1111': 'tok' }, bucketLimit: 1000, resetAfterSec: 60, now: () => clockRef.now() })
const h = makeHarness({
  fill: store => fillWalkUniverse(store, ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'], T0, 36, 51),
  nowMs: START,
  env: { ADMIN_KEY: KEY, WEBHOOK_ALLOW_PRIVATE: '1', TELEGRAM_API_URL: telegram.url, DISCORD_API_URL: discord.apiUrl },
})
clockRef.now = () => h.clock.now()
const pusher = new Pusher({ db: h.deps.db, clock: h.clock, config: h.deps.config.push, baseUrl: BASE, log: createLogger('silent') })
afterAll(async () => {
  h.cleanup()
  await receiver.close()
  await telegram.close()
  await discord.close()
})

const FREQUENT = ['bb-squeeze-long', 'momentum-breakout-short', 'macd-cross-long']
let secret = ''
let events: EventRow[] = []
const admin = { 'x-admin-key': KEY }
const register = async (body: Record<string, unknown>) => (await h.req('/admin/webhooks', { method: 'POST', headers: admin, json: body })).body

beforeAll(async () => {
  secret = (await register({ url: receiver.url })).secret
  await register({ sink: 'telegram', bot_token: TOKEN, chat_id: '42', lang: 'ko', kinds: ['scored', 'day_root', 'paper'] })
  await register({ sink: 'discord', url: discord.webhookUrl('1111'), kinds: ['ranking'] })
  const date = new Date(START).toISOString().slice(0, 10)
  await publishPicksDay(h, date, FREQUENT.map((s, i) => rankedRegistryRow(s, i + 1, { win_rate: 55.5, total_return_pct: 12.3 })), (_p, g) => g === 'top50')
  // the delivery between the hours, as the scheduler's does
  await runLiveHours(h, START, END, () => pusher.deliverDue())
  events = await eventsAfter(h.deps.db, 0, { limit: 1_000_000 })
}, 180_000)

/** the reference library's check, at the delivery's own time (the clock here is in 2025) */
function verify(hook: { body: string; headers: Record<string, string> }): unknown {
  setSystemTime(new Date(Number(hook.headers['webhook-timestamp']) * 1000))
  try {
    return new Webhook(secret).verify(hook.body, hook.headers)
  } finally {
    setSystemTime()
  }
}

describe('delivery of the live records', () => {
  test('every event reached the webhook exactly once, signed, its data the record as written', async () => {
    for (const k of ['signal', 'scored', 'day_root', 'ranking', 'paper']) expect(events.some(e => e.kind === k)).toBe(true)
    expect(receiver.received.map(r => Number(r.headers['webhook-id']))).toEqual(events.map(e => e.id))
    for (const [i, hook] of receiver.received.entries()) {
      const body = verify(hook) as { id: number; type: string; timestamp: string; data: unknown }
      expect(body).toEqual({ id: events[i]!.id, type: events[i]!.kind, timestamp: isoInstant(events[i]!.createdAt), data: JSON.parse(events[i]!.payload) })
    }
  })

  test("Telegram's Korean messages link to proofs and roots the API serves", async () => {
    const want = events.filter(e => e.kind === 'scored' || e.kind === 'day_root' || e.kind === 'paper').length
    expect(telegram.sent.length).toBe(want)
    const sealed = new Set(events.filter(e => e.kind === 'day_root').map(e => JSON.parse(e.payload).date as string))
    let proofsChecked = 0
    for (const m of telegram.sent) {
      const link = m.text.split('\n').at(-1)!.replace(/^증명: /, '')
      expect(link.startsWith(BASE)).toBe(true)
      const path = link.slice(BASE.length)
      const day = /\/trust\/merkle\/(\d{8})/.exec(path)?.[1]
      if (!day || !sealed.has(day)) continue
      const r = await h.req(path)
      expect([path, r.status, r.status === 200 ? null : r.body]).toEqual([path, 200, null])
      if (path.includes('/proof?leaf=')) {
        expect(r.body.leaf_hash).toBe(path.split('leaf=')[1])
        proofsChecked++
      }
    }
    expect(proofsChecked).toBeGreaterThan(0)
    // the paper positions: opened and closed, each linking its cycle
    const paper = telegram.sent.filter(m => m.text.includes('모의 거래'))
    expect(paper.length).toBe(events.filter(e => e.kind === 'paper').length)
    expect(paper.some(m => m.text.startsWith('📄 모의 거래 진입: '))).toBe(true)
    expect(paper.some(m => /^(✅|❌|📄) 모의 거래 종료: /.test(m.text))).toBe(true)
    for (const link of new Set(paper.map(m => m.text.split('\n').at(-1)!))) {
      expect(link).toMatch(/\/paper-trading\?cycle=\d+$/)
      expect((await h.req(link.slice(BASE.length))).status).toBe(200)
    }
  })

  test("Discord's ranking message names the first row's figures and links its /share page", async () => {
    expect(discord.sent.length).toBe(1)
    const [text, link] = discord.sent[0]!.content.split('\n')
    expect(text).toContain(`#1 ${getStrategy(FREQUENT[0]!)!.name}`)
    expect(text).toContain('PF 2.50 · win 55.5% · return +12.3% (30d)')
    expect(link).toStartWith(`${BASE}/share?preset=${FREQUENT[0]}`)
    expect(link).toContain('lang=en')
    const page = await h.req(link!.slice(BASE.length))
    expect(page.status).toBe(200)
  }, 60_000)
})
