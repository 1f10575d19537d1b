import { describe, expect, test } from 'bun:test'
import { CsvLines, num, numberAt } from '../src/market/import-lines'

const bytes = (s: string) => new TextEncoder().encode(s)
const read = (s: string) => numberAt(bytes(s), 0, bytes(s).length)

describe('numbers read from CSV bytes', () => {
  test('every plain decimal reads exactly as Number() reads it', () => {
    let seed = 12345
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
    const samples: string[] = []
    for (let i = 0; i < 200_000; i++) {
      const intDigits = Math.floor(rnd() * 17)
      const fracDigits = Math.floor(rnd() * 24)
      let s = rnd() < 0.2 ? '-' : ''
      for (let k = 0; k < intDigits; k++) s += Math.floor(rnd() * 10)
      if (fracDigits > 0 || intDigits === 0) s += '.'
      for (let k = 0; k < fracDigits; k++) s += Math.floor(rnd() * 10)
      samples.push(s)
    }
    samples.push('0', '-0', '1.', '.5', '-.5', '12889.35000000', '0.00001234', '9007199254740991', '9007199254740993', '0.1', '0.3')
    for (const s of samples) {
      const expected = num(s)
      const got = read(s)
      if (!Object.is(got, expected)) throw new Error(`${s}: read ${got}, Number() gives ${expected}`)
    }
  })

  test('exponents, signs and other forms fall back to Number(); empty, blank and junk are NaN', () => {
    expect(read('7.3e-06')).toBe(7.3e-6)
    expect(read('1E3')).toBe(1000)
    expect(read('+5')).toBe(5)
    for (const s of ['', ' ', ' 5', '-', '.', 'abc', '1.2.3', '--1', '0x', 'NaN']) expect(read(s)).toBeNaN()
  })

  test('lines split at commas, with CRLF, a byte-order mark and blank lines', () => {
    const lines = new CsvLines(bytes('\uFEFFa,b\r\n\r\n1,,3\n'))
    expect(lines.next()).toBe(true)
    expect([lines.lineNo, lines.cells, lines.cell(0), lines.cell(1)]).toEqual([1, 2, 'a', 'b'])
    expect(lines.next()).toBe(true)
    expect([lines.lineNo, lines.cells, lines.number(0), lines.number(1), lines.number(2)]).toEqual([3, 3, 1, NaN, 3])
    expect(lines.next()).toBe(false)
  })
})
