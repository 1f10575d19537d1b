import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { CandleStore } from '../src/market/candle-store'
import { generateStore } from '../src/market/generate-store'
import { tempDir } from './helpers/fixtures'

const dirs: string[] = []
afterAll(() => dirs.forEach(d => rmSync(d, { recursive: true, force: true })))
const END = Date.UTC(2026, 0, 10, 5, 30)

describe('generating a whole synthetic store', () => {
  test('lands complete, records its seed and leaves no staging folder', () => {
    const dir = tempDir()
    dirs.push(dir)
    const res = generateStore(dir, { coins: 5, days: 3, seed: 42, endMs: END })
    expect(res.coins).toBe(5)
    const store = CandleStore.open(dir)
    expect(store.coinCount).toBe(5)
    expect(store.isSynthetic()).toBe(true)
    expect(store.syntheticSeed()).toBe(42)
    expect(readdirSync(dir).filter(n => n.startsWith('.staging'))).toEqual([])
  })

  test('a generation that fails midway leaves no store behind', () => {
    const dir = tempDir()
    dirs.push(dir)
    expect(() => generateStore(dir, { coins: 5, days: 0, seed: 1, endMs: END })).toThrow()
    expect(existsSync(join(dir, 'store'))).toBe(false)
    expect(readdirSync(dir)).toEqual([])
  })
})
