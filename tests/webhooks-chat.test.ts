/**
 * Telegram and Discord sinks (docs/events.md "Telegram and Discord"), against loopback
 * servers that speak each API's request and response format, rate limits included: a
 * short message per event in the sink's language, with figures and a link; Telegram's 429
 * `retry_after` and Discord's 429 `retry_after` and exhausted X-RateLimit bucket are waited
 * out with no request meanwhile; an unknown chat or webhook fails at once (retrying cannot
 * help).
 */
import { sql } from 'drizzle-orm'
import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { schema } from '../src/db'
import { createLogger } from '../src/log'
import { eventText } from '../src/push/messages'
import { Pusher } from '../src/push/pusher'
import { appendEvents, type NewEvent } from '../src/records/events'
import { startDiscordFake } from './helpers/discord-fake'
import { makeHarness } from './helpers/harness'
import { startTelegramFake } from './helpers/telegram-fake'

const TOKEN = '7012345678:AAH3-telegram-token-for-tests_xyz'
const CHAT = -1001234567890
const KEY = 'k'
const clockRef: { now: () => number } = { now: () => 0 }
const telegram = startTelegramFake({ tokens: [TOKEN], chats: [CHAT, '@perpsim_alerts'] })
const discord = startDiscordFake({ webhooks: { '1111': 'tok_en', '2222': 'tok_ko' }, bucketLimit: 2, resetAfterSec: 2.5, now: () => clockRef.now() })
const h = makeHarness({ env: { ADMIN_KEY: KEY, TELEGRAM_API_URL: telegram.url, DISCORD_API_URL: discord.apiUrl } })
clockRef.now = () => h.clock.now()
const pusher = new Pusher({ db: h.deps.db, clock: h.clock, config: h.deps.config.push, baseUrl: 'https://perpsim.example.org', log: createLogger('silent'), random: () => 0.5 })
afterAll(async () => {
  h.cleanup()
  await telegram.close()
  await discord.close()
})

const admin = { 'x-admin-key': KEY }
async function register(body: Record<string, unknown>): Promise<number> {
  const r = await h.req('/admin/webhooks', { method: 'POST', headers: admin, json: body })
  expect(r.status).toBe(201)
  return r.body.id
}
const append = (...list: NewEvent[]) => h.deps.db.tx(tx => appendEvents(tx, h.clock.now(), list))
const rowsOf = async (endpointId: number) => (await h.deps.db.orm.select().from(schema.pushDeliveries)).filter(d => d.endpointId === endpointId)

const signal = (id: number, coin: string): NewEvent => ({
  kind: 'signal',
  strategy: 'bb-squeeze-short',
  coin,
  status: 'verified',
  payload: { id, strategy: 'bb-squeeze-short', strategy_name: 'BB Squeeze Short', coin, direction: 'short', timeframe: '1H', entry_price: 0.123456789, sl_pct: 10, tp_pct: 8, status: 'verified' },
})
const scored = (id: number, pnl: number): NewEvent => ({
  kind: 'scored',
  strategy: 'bb-squeeze-short',
  coin: 'BTC',
  status: 'verified',
  payload: {
    scored: { id, strategy_name: 'BB Squeeze Short', coin: 'BTC', direction: 'short', status: pnl > 0 ? 'tp' : 'sl', pnl_pct: pnl, bars_held: 7, exit_time: '2026-11-21T13:00:00Z', finalized_at: '2026-11-21T14:00:10Z' },
    record_id: `scored_signal:${id}`,
    leaf_hash: 'ab'.repeat(32),
  },
})

beforeEach(async () => {
  await pusher.deliverDue()
  for (const e of (await h.req('/admin/webhooks', { headers: admin })).body.endpoints) await h.req(`/admin/webhooks/${e.id}`, { method: 'DELETE', headers: admin })
  telegram.sent.length = 0
  discord.sent.length = 0
})

describe('Telegram', () => {
  test('sendMessage to the chat: a short Korean or English text with the figures and a link to the record', async () => {
    await register({ sink: 'telegram', bot_token: TOKEN, chat_id: String(CHAT), lang: 'ko' })
    await register({ sink: 'telegram', bot_token: TOKEN, chat_id: '@perpsim_alerts', lang: 'en', kinds: ['scored'] })
    await append(signal(11, 'BTC'), scored(11, 7.654321))
    expect(await pusher.deliverDue()).toMatchObject({ delivered: 3, failed: 0 })
    const ko = telegram.sent.filter(m => m.chat_id === CHAT)
    expect(ko.map(m => m.text)).toEqual([
      '🔔 BB Squeeze Short · BTC 숏 진입 0.123457 · 손절 10.0% · 익절 8.0% · 1H (검증됨)\nhttps://perpsim.example.org/signals/scored?signal_ids=11',
      `✅ BB Squeeze Short · BTC 숏: 익절 +7.65% · 7봉\n증명: https://perpsim.example.org/trust/merkle/20261121/proof?leaf=${'ab'.repeat(32)}`,
    ])
    const en = telegram.sent.filter(m => m.chat_id === '@perpsim_alerts')
    expect(en.map(m => m.text)).toEqual([`✅ BB Squeeze Short · SHORT BTC: take profit +7.65% · 7 bars\nproof: https://perpsim.example.org/trust/merkle/20261121/proof?leaf=${'ab'.repeat(32)}`])
    for (const m of telegram.sent) {
      expect(m.disable_web_page_preview).toBe(true)
      expect(m.text.length).toBeLessThan(300)
    }
  })

  test('429 retry_after is honoured: the endpoint waits that long, with no request meanwhile', async () => {
    const id = await register({ sink: 'telegram', bot_token: TOKEN, chat_id: String(CHAT) })
    await append(signal(21, 'ETH'), signal(22, 'SOL'))
    telegram.floodNext(17)
    const requestsBefore = telegram.requests
    expect(await pusher.deliverDue()).toMatchObject({ delivered: 0, postponed: 2 })
    expect(telegram.requests - requestsBefore).toBe(1)
    expect((await rowsOf(id)).map(r => [r.status, r.attempts, r.nextAttemptAtMs])).toEqual([['pending', 0, h.clock.now() + 17_000], ['pending', 0, h.clock.now() + 17_000]])
    h.clock.advance(16_999)
    await pusher.deliverDue()
    expect(telegram.requests - requestsBefore).toBe(1)
    h.clock.advance(1)
    expect((await pusher.deliverDue()).delivered).toBe(2)
    expect(telegram.sent.map(m => m.text.split(' · ')[1])).toEqual(['SHORT ETH at 0.123457', 'SHORT SOL at 0.123457'])
  })

  test('an unknown chat (400) or a revoked token (401) fails at once: retrying cannot help', async () => {
    const unknownChat = await register({ sink: 'telegram', bot_token: TOKEN, chat_id: '-1009999999999' })
    const revoked = await register({ sink: 'telegram', bot_token: '7012345678:AAH3-some-revoked-token-value', chat_id: String(CHAT) })
    await append(signal(31, 'BTC'))
    expect(await pusher.deliverDue()).toMatchObject({ delivered: 0, failed: 2 })
    expect((await rowsOf(unknownChat))[0]).toMatchObject({ status: 'failed', lastStatus: 400, lastError: 'Telegram 400: Bad Request: chat not found' })
    expect((await rowsOf(revoked))[0]).toMatchObject({ status: 'failed', lastStatus: 401, lastError: 'Telegram 401: Unauthorized' })
  })
})

describe('an API that does not answer', () => {
  test('is retried with backoff, and the bot token in its URL never reaches the row, the health or the log', async () => {
    const dead = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') })
    const deadUrl = `http://127.0.0.1:${dead.port}`
    dead.stop(true)
    const lines: string[] = []
    const log = { ...createLogger('silent'), warn: (m: string) => void lines.push(m), info: (m: string) => void lines.push(m), error: (m: string) => void lines.push(m) }
    const offline = new Pusher({ db: h.deps.db, clock: h.clock, config: { ...h.deps.config.push, telegramApiUrl: deadUrl }, baseUrl: 'https://perpsim.example.org', log: log as never, random: () => 0.5 })
    const id = await register({ sink: 'telegram', bot_token: TOKEN, chat_id: String(CHAT) })
    await append(signal(61, 'BTC'))
    expect(await offline.deliverDue()).toMatchObject({ delivered: 0, retrying: 1 })
    const row = (await rowsOf(id))[0]!
    expect(row).toMatchObject({ status: 'pending', attempts: 1, lastStatus: null })
    expect(row.lastError).toStartWith('no answer')
    const everything = JSON.stringify([row, (await h.deps.db.orm.select().from(schema.pushEndpoints)).find(e => e.id === id)!.lastError, lines])
    expect(everything).not.toContain(TOKEN.split(':')[1])
  })
})

describe('Discord', () => {
  test('POST ?wait=true {content}, mentions off; an exhausted bucket (X-RateLimit-Remaining: 0) is waited out before the next message, so no 429 is ever hit', async () => {
    await register({ sink: 'discord', url: discord.webhookUrl('1111') })
    await append(signal(41, 'BTC'), signal(42, 'ETH'), signal(43, 'SOL'), signal(44, 'XRP'), signal(45, 'ADA'))
    expect(await pusher.deliverDue()).toMatchObject({ delivered: 2, postponed: 3 })
    expect(discord.sent.map(m => [m.webhook, m.wait, m.allowed_mentions])).toEqual([['1111', true, { parse: [] }], ['1111', true, { parse: [] }]])
    h.clock.advance(2_400)
    expect((await pusher.deliverDue()).delivered).toBe(0)
    h.clock.advance(100)
    expect((await pusher.deliverDue()).delivered).toBe(2)
    h.clock.advance(2_500)
    expect((await pusher.deliverDue()).delivered).toBe(1)
    expect(discord.limited).toBe(0)
    expect(discord.sent.map(m => m.content.split('\n')[0])).toEqual(['BTC', 'ETH', 'SOL', 'XRP', 'ADA'].map(c => `🔔 BB Squeeze Short · SHORT ${c} at 0.123457 · SL 10.0% · TP 8.0% · 1H (verified)`))
  })

  test("a 429's retry_after (seconds, a float) is honoured to the millisecond; an unknown webhook (404) fails at once", async () => {
    h.clock.advance(10_000) // a fresh bucket
    const ko = await register({ sink: 'discord', url: discord.webhookUrl('2222'), lang: 'ko' })
    const gone = await register({ sink: 'discord', url: `${discord.apiUrl}/webhooks/3333/deleted` })
    await append(scored(51, -3.2))
    discord.rateLimitNext(1.234)
    expect(await pusher.deliverDue()).toMatchObject({ delivered: 0, postponed: 1, failed: 1 })
    expect((await rowsOf(gone))[0]).toMatchObject({ status: 'failed', lastStatus: 404, lastError: 'Discord 404: Unknown Webhook' })
    expect((await rowsOf(ko))[0]!.nextAttemptAtMs).toBe(h.clock.now() + 1_234)
    h.clock.advance(1_233)
    expect((await pusher.deliverDue()).delivered).toBe(0)
    h.clock.advance(1)
    expect((await pusher.deliverDue()).delivered).toBe(1)
    expect(discord.limited).toBe(1)
    expect(discord.sent.at(-1)!.content).toBe(`❌ BB Squeeze Short · BTC 숏: 손절 -3.20% · 7봉\n증명: https://perpsim.example.org/trust/merkle/20261121/proof?leaf=${'ab'.repeat(32)}`)
  })

  test('ping answers with what Discord said', async () => {
    h.clock.advance(10_000)
    const id = await register({ sink: 'discord', url: discord.webhookUrl('1111') })
    const r = await h.req(`/admin/webhooks/${id}/ping`, { method: 'POST', headers: admin })
    expect(r.body).toMatchObject({ delivered: true, status: 200, error: null })
    expect(discord.sent.at(-1)!.content).toBe(`perpsim test message (ping): notification endpoint ${id} is connected.`)
  })
})

describe('the messages', () => {
  const links = { baseUrl: 'https://perpsim.example.org', rankingTop: () => null, proofDay: () => '20261121' }
  const position = { cycle_id: 3, strategy: 'bb-squeeze-long', coin: 'ETH', direction: 'long', entry_price: 3012.456789, margin_usd: 100, leverage: 5, sl_pct: 10, tp_pct: 8, exit_reason: null, pnl_pct: null, pnl_usd: null, bars_held: null }
  test('a paper position opened and closed, in English and Korean, linking its cycle', async () => {
    expect(eventText({ id: 1, kind: 'paper', payload: { action: 'opened', position } }, 'en', links)).toBe('📄 Paper trade opened: LONG ETH at 3012.46 · $100 margin ×5 · SL 10.0% · TP 8.0% (bb-squeeze-long)\nhttps://perpsim.example.org/paper-trading?cycle=3')
    const closed = { ...position, exit_reason: 'tp', pnl_pct: 40.1234, pnl_usd: 40.12, bars_held: 9 }
    expect(eventText({ id: 2, kind: 'paper', payload: { action: 'closed', position: closed } }, 'en', links)).toBe('✅ Paper trade closed: LONG ETH take profit +40.12% (+$40.12) · 9 bars (bb-squeeze-long)\nhttps://perpsim.example.org/paper-trading?cycle=3')
    expect(eventText({ id: 2, kind: 'paper', payload: { action: 'closed', position: { ...closed, exit_reason: 'sl', pnl_pct: -50.5, pnl_usd: -50.5 } } }, 'ko', links)).toBe('❌ 모의 거래 종료: ETH 롱 손절 -50.50% (-$50.50) · 9봉 (bb-squeeze-long)\nhttps://perpsim.example.org/paper-trading?cycle=3')
  })

  test('a ranking day without rows, a day root, and a kind without wording yet still say what and where', async () => {
    expect(eventText({ id: 5, kind: 'ranking', payload: { date: '2026-11-22', sha256: '0123456789abcdef'.repeat(4), url: '/rankings/files/20261122' } }, 'en', links)).toBe('🏆 Rankings 2026-11-22 published (sha256 0123456789ab…)\nhttps://perpsim.example.org/rankings/files/20261122')
    expect(eventText({ id: 6, kind: 'day_root', payload: { date: '20261121', leaf_count: 1, root: 'f'.repeat(64) } }, 'ko', links)).toBe(`🌳 2026-11-21: 기록 1건 봉인 · 루트 ${'f'.repeat(16)}…\nhttps://perpsim.example.org/trust/merkle/20261121`)
    expect(eventText({ id: 7, kind: 'sweep', payload: {} }, 'en', links)).toBe('perpsim sweep event #7\nhttps://perpsim.example.org/events?types=sweep')
  })
})
