/**
 * A/B of mergeCoinTables (the main thread's merge of a run's chunk tables, issue 30): two
 * chunk tables of a new tree's size (516 coins interleaved over two parts, 123 trades a coin,
 * two marks a trade) merged by another checkout's src/ and by this tree's, alternated, each
 * round 10 merges; prints ms per merge and checks that both give the same bytes.
 *   bun bench/_ab-merge.ts <dir holding the other src/> [rounds]
 */
import { join } from 'node:path'
import * as B from '../src/engine/trade-table'

const other = process.argv[2]
if (!other) throw new Error('usage: bun bench/_ab-merge.ts <dir holding the other src/> [rounds]')
const rounds = Number(process.argv[3]) > 0 ? Number(process.argv[3]) : 8
const A = (await import(join(other, 'src/engine/trade-table.ts'))) as typeof B
const symbols = Array.from({ length: 516 }, (_, i) => `C${i}USDT`)

function part(mod: number, T: typeof B): B.TradeTable {
  const syms = symbols.filter((_, i) => i % 2 === mod)
  const b = new T.TradeTableBuilder('short', syms, 40000, 80000)
  for (let c = 0; c < syms.length; c++)
    for (let k = 0; k < 123; k++) {
      b.addMark(k * 0.5)
      b.addMark(k * 0.25)
      const i = b.append(c)
      const t = b.rows
      t.entryIdx[i] = k
      t.exitIdx[i] = k + 3
      t.entryMs[i] = k * 3.6e6
      t.exitMs[i] = (k + 3) * 3.6e6
      t.pnlPct[i] = Math.sin(k + c)
    }
  return b.finish()
}

const sides = [
  { name: 'other', T: A, parts: [part(0, A), part(1, A)], ms: [] as number[] },
  { name: 'this', T: B, parts: [part(0, B), part(1, B)], ms: [] as number[] },
]
for (let r = 0; r < rounds; r++)
  for (const s of r % 2 === 0 ? sides : [...sides].reverse()) {
    const t0 = performance.now()
    for (let k = 0; k < 10; k++) s.T.mergeCoinTables(symbols, 'short', s.parts)
    s.ms.push((performance.now() - t0) / 10)
  }
const x = A.mergeCoinTables(symbols, 'short', sides[0].parts)
const y = B.mergeCoinTables(symbols, 'short', sides[1].parts)
const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength)
const same = B.TRADE_COLUMNS.every(k => Buffer.compare(bytes(x[k]), bytes(y[k])) === 0) && Buffer.compare(bytes(x.marks!.move), bytes(y.marks!.move)) === 0 && Buffer.compare(bytes(x.marks!.start), bytes(y.marks!.start)) === 0
const med = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1]
for (const s of sides) console.log(`${s.name}: ${med(s.ms).toFixed(2)} ms p50 a merge of ${x.n} rows (rounds: ${s.ms.map(v => v.toFixed(2)).join(' ')})`)
console.log(`the same bytes: ${same ? 'yes' : 'NO'}`)
