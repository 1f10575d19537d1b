/**
 * The generated bot at run time (`node bot.mjs --once`), with ccxt installed beside it,
 * against a loopback Binance USDⓈ-M: the public endpoints from tests/fixtures/binance-server.ts,
 * the signed order endpoints answered here in Binance's format and recorded.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { unzipSync } from 'fflate'
import { HOUR_MS } from '../src/time'
import { makeCandles, startFakeBinance, type FakeBinance } from './fixtures/binance-server'
import { fillWalkUniverse, makeHarness, tempDir } from './helpers/harness'

interface OrderCall {
  method: string
  path: string
  params: Record<string, string>
}

const ROOT = join(import.meta.dir, '..')
const out = tempDir('perpsim-bots-live-')
const h = makeHarness({ fill: s => fillWalkUniverse(s, ['BTCUSDT'], Date.UTC(2024, 0, 1), 20, 3) })
let publicApi: FakeBinance
let server: ReturnType<typeof Bun.serve>
const calls: OrderCall[] = []
let nextId = 1000
const orders = new Map<string, Record<string, unknown>>()
const algoOrders = new Map<string, Record<string, unknown>>()
// the last closed candle: the previous full hour (the bot drops the candle still forming)
const lastOpen = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - HOUR_MS
const candles = makeCandles(lastOpen - 299 * HOUR_MS, 300, 5, 50_000)
const lastClose = candles[candles.length - 1][4]

function order(params: Record<string, string>, status: string): Record<string, unknown> {
  const id = String(nextId++)
  const market = params.type === 'MARKET' && params.reduceOnly !== 'true'
  const o = {
    orderId: Number(id), symbol: params.symbol, status, clientOrderId: `x-${id}`, price: '0', avgPrice: market ? String(lastClose) : '0',
    origQty: params.quantity, executedQty: market ? params.quantity : '0', cumQuote: market ? String(Number(params.quantity) * lastClose) : '0',
    timeInForce: 'GTC', type: params.type, reduceOnly: params.reduceOnly === 'true', closePosition: false, side: params.side, positionSide: 'BOTH',
    stopPrice: params.stopPrice ?? '0', workingType: 'CONTRACT_PRICE', priceProtect: false, origType: params.type, updateTime: Date.now(),
  }
  orders.set(id, o)
  return o
}

/** Binance's answer to a new conditional (algo) order: POST /fapi/v1/algoOrder */
function algoOrder(params: Record<string, string>): Record<string, unknown> {
  const id = String(nextId++)
  const o = {
    algoId: Number(id), clientAlgoId: params.clientAlgoId, algoType: 'CONDITIONAL', orderType: params.type, symbol: params.symbol, side: params.side,
    positionSide: 'BOTH', timeInForce: 'GTC', quantity: params.quantity, algoStatus: 'NEW', triggerPrice: params.triggerPrice, price: '0',
    icebergQuantity: null, selfTradePreventionMode: 'EXPIRE_MAKER', workingType: 'CONTRACT_PRICE', priceMatch: 'NONE', closePosition: false,
    priceProtect: false, reduceOnly: params.reduceOnly === 'true', activatePrice: '', callbackRate: '', createTime: Date.now(), updateTime: Date.now(), triggerTime: 0, goodTillDate: 0,
  }
  algoOrders.set(id, o)
  return o
}

beforeAll(() => {
  publicApi = startFakeBinance({ markets: [{ symbol: 'BTCUSDT', candles }] })
  server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const params: Record<string, string> = Object.fromEntries(url.searchParams)
      if (req.method !== 'GET') Object.assign(params, Object.fromEntries(new URLSearchParams(await req.text())))
      const signed = 'signature' in params
      if (!signed) return fetch(publicApi.url + url.pathname + url.search)
      calls.push({ method: req.method, path: url.pathname, params })
      const json = (body: unknown) => Response.json(body)
      if (url.pathname === '/fapi/v1/leverage') return json({ leverage: Number(params.leverage), maxNotionalValue: '1000000', symbol: params.symbol })
      if (url.pathname === '/fapi/v1/order' && req.method === 'POST') return json(order(params, params.type === 'MARKET' ? 'FILLED' : 'NEW'))
      if (url.pathname === '/fapi/v1/order' && req.method === 'GET') return json(orders.get(params.orderId) ?? {})
      if (url.pathname === '/fapi/v1/order' && req.method === 'DELETE') return json({ ...orders.get(params.orderId), status: 'CANCELED' })
      if (url.pathname === '/fapi/v1/algoOrder' && req.method === 'POST') return json(algoOrder(params))
      if (url.pathname === '/fapi/v1/algoOrder' && req.method === 'GET') return json(algoOrders.get(params.algoId) ?? {})
      if (url.pathname === '/fapi/v1/algoOrder' && req.method === 'DELETE') {
        const o = algoOrders.get(params.algoId)
        if (o) o.algoStatus = 'CANCELED'
        return json({ algoId: Number(params.algoId), clientAlgoId: o?.clientAlgoId, code: '200', msg: 'success' })
      }
      return Response.json({ code: -5000, msg: `Path ${url.pathname}, Method ${req.method} is invalid` }, { status: 404 })
    },
  })
})

afterAll(async () => {
  server.stop(true)
  await publicApi.stop()
  h.cleanup()
  rmSync(out, { recursive: true, force: true })
})

/** A generated bot, unzipped, with ccxt "installed" (the project's node_modules linked in). */
async function botDir(name: string, settings: Record<string, unknown>): Promise<string> {
  const res = await h.app.handle(new Request('http://localhost/generate-bot', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ coins: ['BTCUSDT'], name, ...settings }) }))
  expect(res.status).toBe(200)
  const files = unzipSync(new Uint8Array(await res.arrayBuffer()))
  const dir = join(out, name)
  for (const [path, data] of Object.entries(files)) {
    if (path.endsWith('/')) continue
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), data)
  }
  const root = join(dir, `perpsim-bot-${name}`)
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'))
  return root
}

/** `node bot.mjs --once` (asynchronously: the loopback servers answer from this process). */
async function runOnce(dir: string, env: Record<string, string>) {
  const p = Bun.spawn(['node', 'bot.mjs', '--once'], { cwd: dir, stdout: 'pipe', stderr: 'pipe', env: { PATH: process.env.PATH ?? '', EXCHANGE_API_URL: `http://127.0.0.1:${server.port}`, ...env }, timeout: 60_000 })
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  return { code, out: stdout + stderr }
}

const state = (dir: string) => JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'))
// always true at a candle close: the bot must enter on the next candle
const ALWAYS = { direction: 'long', indicators: {}, entry: { field: 'close', op: '>', value: 0 }, sl_pct: 2, tp_pct: 3, max_bars: 3, leverage: 3, position_size_usd: 100 }

describe('the generated bot at run time', () => {
  test('dry-run by default: it logs the entry and the reduce-only stop and target it would place, keeps the position in its state file, and sends no order', async () => {
    const dir = await botDir('dry', ALWAYS)
    const before = calls.length
    const r = await runOnce(dir, {})
    expect(r.code).toBe(0)
    expect(r.out).toContain('dry-run on binanceusdm')
    expect(r.out).toContain(`[dry-run] BTCUSDT: would buy`)
    expect(r.out).toContain('reduce-only stop loss at')
    expect(calls.length).toBe(before)
    const s = state(dir)
    expect(s.positions.BTCUSDT).toMatchObject({ side: 'long', dry_run: true, entry_price: lastClose })
    expect(s.positions.BTCUSDT.sl_price).toBeCloseTo(lastClose * 0.98, 6)
    expect(s.last_candle_ms.BTCUSDT).toBe(lastOpen)

    // one candle later in its state, with a stop the last candle's low went through: the dry position closes there, and the signal enters again
    s.last_candle_ms.BTCUSDT = lastOpen - HOUR_MS
    s.positions.BTCUSDT.entry_time_ms = lastOpen
    s.positions.BTCUSDT.sl_price = candles[candles.length - 1][3] + 1
    writeFileSync(join(dir, 'state.json'), JSON.stringify(s))
    const stopped = await runOnce(dir, {})
    expect(stopped.out).toContain('BTCUSDT: the stop loss closed the long')
    expect(stopped.out).toContain('[dry-run] BTCUSDT: would buy')
    expect(state(dir).positions.BTCUSDT.sl_price).toBeCloseTo(lastClose * 0.98, 6)
    expect(calls.length).toBe(before)
  }, 90_000)

  test('config.live without BOT_LIVE=yes stays dry', async () => {
    const dir = await botDir('half', ALWAYS)
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...state0(dir), live: true }))
    const before = calls.length
    const r = await runOnce(dir, { API_KEY: 'k', API_SECRET: 's' })
    expect(r.out).toContain('BOT_LIVE=yes is not set: running dry')
    expect(calls.length).toBe(before)
  }, 90_000)

  test('live (config and environment): market entry, then reduce-only stop-loss and take-profit orders on the exchange; a restart on the same candle does nothing; a filled take profit cancels the stop; max_bars cancels both and closes reduce-only', async () => {
    const dir = await botDir('live', ALWAYS)
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...state0(dir), live: true }))
    const env = { BOT_LIVE: 'yes', API_KEY: 'key', API_SECRET: 'secret' }
    const from = calls.length
    const r = await runOnce(dir, env)
    expect(r.code).toBe(0)
    const mine = calls.slice(from)
    expect(mine.find(c => c.path === '/fapi/v1/leverage')?.params.leverage).toBe('3')
    const entry = mine.find(c => c.method === 'POST' && c.path === '/fapi/v1/order')!
    expect(entry.params).toMatchObject({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET' })
    // 100 USDT margin × 3, truncated to the market's 3 decimals (exchangeInfo's quantityPrecision)
    expect(entry.params.quantity).toBe(String(Math.floor(((100 * 3) / lastClose) * 1000) / 1000))
    const conditional = mine.filter(c => c.method === 'POST' && c.path === '/fapi/v1/algoOrder')
    const sl = conditional.find(c => c.params.type === 'STOP_MARKET')!
    const tp = conditional.find(c => c.params.type === 'TAKE_PROFIT_MARKET')!
    expect(sl.params).toMatchObject({ side: 'SELL', reduceOnly: 'true', quantity: entry.params.quantity, algoType: 'CONDITIONAL' })
    expect(tp.params).toMatchObject({ side: 'SELL', reduceOnly: 'true', quantity: entry.params.quantity, algoType: 'CONDITIONAL' })
    expect(Number(sl.params.triggerPrice)).toBeCloseTo(lastClose * 0.98, 0)
    expect(Number(tp.params.triggerPrice)).toBeCloseTo(lastClose * 1.03, 0)
    const pos = state(dir).positions.BTCUSDT
    expect(pos.dry_run).toBe(false)
    expect(algoOrders.get(pos.sl_order_id)?.orderType).toBe('STOP_MARKET')
    expect(algoOrders.get(pos.tp_order_id)?.orderType).toBe('TAKE_PROFIT_MARKET')

    // a restart on the same candle: the state says it was acted on
    const again = calls.length
    expect((await runOnce(dir, env)).code).toBe(0)
    expect(calls.slice(again)).toEqual([])

    // the take profit filled on the exchange; one candle later the bot notices, cancels the stop, and (the signal holds) enters again
    algoOrders.get(pos.tp_order_id)!.algoStatus = 'FINISHED'
    const oneLater = state(dir)
    oneLater.last_candle_ms.BTCUSDT = lastOpen - HOUR_MS
    oneLater.positions.BTCUSDT.entry_time_ms = lastOpen
    writeFileSync(join(dir, 'state.json'), JSON.stringify(oneLater))
    const tpFrom = calls.length
    const t = await runOnce(dir, env)
    expect(t.out).toContain('the take profit closed the long')
    const tpCalls = calls.slice(tpFrom)
    expect(tpCalls.filter(c => c.method === 'DELETE').map(c => c.params.algoId)).toEqual([pos.sl_order_id])
    expect(tpCalls.filter(c => c.method === 'POST' && c.path === '/fapi/v1/order')).toHaveLength(1)
    const reentered = state(dir).positions.BTCUSDT
    expect(reentered.sl_order_id).not.toBe(pos.sl_order_id)

    // three candles held (the state moved back in time): max_bars closes it
    const moved = state(dir)
    moved.positions.BTCUSDT.entry_time_ms = lastOpen - 2 * HOUR_MS
    moved.last_candle_ms.BTCUSDT = lastOpen - HOUR_MS
    writeFileSync(join(dir, 'state.json'), JSON.stringify(moved))
    const closing = calls.length
    const c = await runOnce(dir, env)
    expect(c.out).toContain('closed the long (max 3 candles held)')
    const after = calls.slice(closing)
    expect(after.filter(x => x.method === 'DELETE' && x.path === '/fapi/v1/algoOrder').map(x => x.params.algoId).sort()).toEqual([reentered.sl_order_id, reentered.tp_order_id].sort())
    const close = after.find(x => x.method === 'POST' && x.path === '/fapi/v1/order' && x.params.reduceOnly === 'true')!
    expect(close.params).toMatchObject({ side: 'SELL', type: 'MARKET', quantity: entry.params.quantity })
  }, 120_000)
})

function state0(dir: string) {
  return JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))
}
