/**
 * A kill -9 mid-delivery loses nothing (docs/events.md "Webhooks"), against the real server
 * process: 300 events wait for one webhook; the server is killed while it sends them and
 * restarted on the same data dir. Every event then reaches the receiver, signed; a row the
 * database marks delivered had reached it before the kill; and at most the one delivery in
 * flight at the kill arrives twice, with the same webhook-id (the receiver's idempotency key).
 */
import { Database } from 'bun:sqlite'
import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { openDb } from '../src/db'
import { CandleStore } from '../src/market/candle-store'
import { appendEvents } from '../src/records/events'
import { addEndpoint } from '../src/records/push-endpoints'
import { newSecret } from '../src/push/signing'
import { fillWalkUniverse, tempDir } from './helpers/fixtures'
import { BUN, freePort, ROOT } from './helpers/serve'
import { startWebhookReceiver } from './helpers/webhook-receiver'

const dir = tempDir('perpsim-push-crash-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const N = 300

test('SIGKILL mid webhook delivery: after a restart every event is delivered, none lost, at most the one in flight twice', async () => {
  const data = join(dir, 'data')
  mkdirSync(data, { recursive: true })
  // a small store, so the server starts without generating the synthetic universe
  const store = CandleStore.open(data)
  fillWalkUniverse(store, ['BTCUSDT', 'ETHUSDT'], Date.now() - 20 * 86_400_000, 20, 7)
  const receiver = startWebhookReceiver()
  receiver.delayMs = 25 // a receiver slow enough for the kill to land mid-delivery
  const dbPath = join(data, 'perpsim.sqlite')
  const secret = newSecret()
  const seed = openDb(dbPath)
  await addEndpoint(seed, Date.now(), { sink: 'webhook', url: receiver.url, secret, telegramBotToken: null, telegramChatId: null, lang: 'en', kinds: [], strategies: [], coins: [], statuses: [] })
  const ids = await seed.tx(tx => appendEvents(tx, Date.now(), Array.from({ length: N }, (_, k) => ({ kind: 'signal' as const, strategy: 'bb-squeeze-short', coin: `C${k}`, status: 'verified', payload: { n: k } }))))
  await seed.close()

  const rows = () => {
    const db = new Database(dbPath, { readonly: true })
    try {
      return db.query('SELECT event_id, status FROM push_deliveries ORDER BY event_id').all() as { event_id: number; status: string }[]
    } finally {
      db.close()
    }
  }
  const port = await freePort()
  const env = { ...process.env, DATA_DIR: data, OFFLINE: '1', DEMO: '0', JOBS: '0', WORKERS: '1', LOG_LEVEL: 'warn', PORT: String(port), HOST: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE: '1' }
  const serve = () => Bun.spawn([BUN, 'src/cli.ts', 'serve'], { cwd: ROOT, env, stdout: 'ignore', stderr: 'ignore' })
  try {
    const proc = serve()
    for (let i = 0; i < 6000 && receiver.received.length < 47; i++) await Bun.sleep(2) // mid-batch (a batch claims 20)
    proc.kill('SIGKILL')
    await proc.exited
    const atKill = rows()
    const count = (s: string) => atKill.filter(r => r.status === s).length
    // the kill landed mid-delivery: some delivered, a batch claimed (leased), the rest waiting
    expect(atKill.length).toBe(N)
    expect(count('delivered')).toBeGreaterThan(0)
    expect(count('sending')).toBeGreaterThan(0)
    expect(count('pending')).toBeGreaterThan(0)
    const seen = new Set(receiver.received.map(r => Number(r.headers['webhook-id'])))
    for (const r of atKill.filter(r => r.status === 'delivered')) expect(seen.has(r.event_id)).toBe(true)

    // a claimed row waits out its 5-minute lease (docs/events.md); let that time pass
    const db = new Database(dbPath)
    db.run("UPDATE push_deliveries SET claimed_until_ms = 0 WHERE status = 'sending'")
    db.close()
    receiver.delayMs = 0
    const again = serve()
    try {
      for (let i = 0; i < 2400 && rows().some(r => r.status !== 'delivered'); i++) await Bun.sleep(25)
      expect(rows().map(r => r.status)).toEqual(Array(N).fill('delivered'))
      const times = new Map<number, number>()
      for (const hook of receiver.received) {
        expect(() => new Webhook(secret).verify(hook.body, hook.headers)).not.toThrow()
        const id = Number(hook.headers['webhook-id'])
        times.set(id, (times.get(id) ?? 0) + 1)
      }
      expect([...times.keys()].sort((a, b) => a - b)).toEqual(ids)
      const twice = [...times].filter(([, n]) => n > 1)
      expect(twice.length).toBeLessThanOrEqual(1)
      for (const [, n] of twice) expect(n).toBe(2)
      expect(receiver.received.length).toBe(N + twice.length)
    } finally {
      again.kill('SIGTERM')
      expect(await again.exited).toBe(0)
    }
  } finally {
    await receiver.close()
  }
}, 120_000)
