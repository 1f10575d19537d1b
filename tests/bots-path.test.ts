import { expect, test } from 'bun:test'
import { barPath, highFirst } from '../src/engine/bots/intrabar-path'

test('the path visits the extreme nearer the open first', () => {
  expect([...barPath(100, 101, 95, 97, new Float64Array(4))]).toEqual([100, 101, 95, 97])
  expect([...barPath(100, 105, 99, 103, new Float64Array(4))]).toEqual([100, 99, 105, 103])
})

test('on a tie the high comes first', () => {
  expect(highFirst(100, 102, 98)).toBe(true)
  expect([...barPath(100, 102, 98, 99, new Float64Array(4))]).toEqual([100, 102, 98, 99])
})
