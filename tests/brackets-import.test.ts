import { afterAll, describe, expect, test } from 'bun:test'
import { rmSync, writeFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { CandleStore } from '../src/market/candle-store'
import { importPaths } from '../src/market/import-binance'
import { hasSharedData, SHARED_DATA } from './engine-fixtures'
import { tempDir } from './helpers/fixtures'

const TIERS = join(SHARED_DATA, 'binance-usdm-leverage-tiers-2024-10.json')
const dirs: string[] = []
afterAll(() => dirs.forEach(d => rmSync(d, { recursive: true, force: true })))
const fresh = () => {
  const d = tempDir('perpsim-brackets-')
  dirs.push(d)
  return d
}

describe.skipIf(!hasSharedData)('data import of leverage tiers (a ccxt fetchLeverageTiers document)', () => {
  test('is recognised by its content, stored as a snapshot, kept across a restart, and moves the data version', async () => {
    const dir = fresh()
    const store = CandleStore.open(dir)
    const before = store.dataVersion()
    const report = await importPaths(store, [TIERS])
    expect(report.failed).toBe(0)
    expect(report.files[0].kind).toBe('brackets')
    expect(report.files[0].appended).toBeGreaterThan(250)
    expect(store.marginBrackets('BTCUSDT')![0]).toEqual({ bracket: 1, floorUsd: 0, capUsd: 50_000, mmrFrac: 0.004, cumUsd: 0, maxLeverage: 125 })
    expect(store.brackets('BTCUSDT')!.source).toBe('import')
    expect(store.dataVersion()).not.toBe(before)
    const reopened = CandleStore.open(dir)
    expect(reopened.marginBrackets('HIFIUSDT')!.map(b => b.bracket)).toEqual(store.marginBrackets('HIFIUSDT')!.map(b => b.bracket))
    expect(reopened.dataVersion()).toBe(store.dataVersion())
    // a second import is a second snapshot: the first is never rewritten
    await importPaths(store, [TIERS])
    expect(readdirSync(join(dir, 'store', 'brackets')).length).toBe(2)
  })

  test('a JSON file that is not leverage tiers fails with the reason and stores nothing', async () => {
    const dir = fresh()
    const store = CandleStore.open(dir)
    const bad = join(dir, 'other.json')
    writeFileSync(bad, JSON.stringify({ BTCUSDT: [{ price: 1 }] }))
    const broken = join(dir, 'broken.json')
    writeFileSync(broken, '{"BTC/USDT:USDT": [')
    const report = await importPaths(store, [bad, broken])
    expect(report.failed).toBe(2)
    expect(report.files[0].error!.reason).toContain('leverage tiers in the shape of ccxt fetchLeverageTiers')
    expect(report.files[1].error!.reason).toStartWith('not valid JSON')
    expect(store.bracketSymbols()).toEqual([])
  })

  test('tiers breaking a rule are refused per symbol and named', async () => {
    const dir = fresh()
    const store = CandleStore.open(dir)
    const f = join(dir, 'tiers.json')
    const tier = (min: number, max: number, mmr: number, lev: number) => ({ minNotional: min, maxNotional: max, maintenanceMarginRate: mmr, maxLeverage: lev, info: {} })
    writeFileSync(f, JSON.stringify({ 'AAA/USDT:USDT': [tier(0, 1000, 0.01, 50), tier(1000, 5000, 0.02, 20)], 'BBB/USDT:USDT': [tier(0, 1000, 0.01, 50), tier(2000, 5000, 0.02, 20)] }))
    const report = await importPaths(store, [f])
    expect(store.bracketSymbols()).toEqual(['AAAUSDT'])
    // the maintenance amount follows from continuity when the raw bracket lacks it: 0 + 1000 · (0.02 − 0.01)
    expect(store.marginBrackets('AAAUSDT')![1].cumUsd).toBeCloseTo(10, 12)
    expect(report.files[0].error!.reason).toContain('BBB/USDT:USDT (bracket 2: floor 2000 does not meet the previous cap 1000)')
  })
})

describe('a synthetic store generated before margin brackets existed', () => {
  test('gets its brackets once at start (a new snapshot), and a second start adds none', () => {
    const { ensureStore } = require('../src/main') as typeof import('../src/main')
    const { generateSyntheticUniverse } = require('../src/market/synthetic') as typeof import('../src/market/synthetic')
    const { ManualClock } = require('../src/clock') as typeof import('../src/clock')
    const { createLogger } = require('../src/log') as typeof import('../src/log')
    const dir = fresh()
    const store = CandleStore.open(dir)
    generateSyntheticUniverse(store, { coins: 3, days: 40, seed: 5, endMs: Date.UTC(2026, 0, 1) })
    // as an old store: remove the snapshot the generator now writes
    for (const f of readdirSync(join(dir, 'store', 'brackets'))) rmSync(join(dir, 'store', 'brackets', f))
    const log = createLogger('error')
    const config = { dataDir: dir } as never
    const clock = new ManualClock(Date.UTC(2026, 0, 2))
    const first = ensureStore(config, clock, log)
    expect(first.bracketSymbols()).toEqual(first.symbols())
    ensureStore(config, clock, log)
    expect(readdirSync(join(dir, 'store', 'brackets')).length).toBe(1)
  })
})
