/**
 * The page's WebCrypto Merkle tree (web/merkle.ts) gives the server's roots
 * (src/engine/merkle.ts) on random leaf sets of 0 to 40 leaves, and its day check says
 * mismatch for every way a published day can disagree with its leaves.
 */
import { describe, expect, test } from 'bun:test'
import { leafHash as serverLeafHash, merkleRoot, toHex as serverHex } from '../src/engine/merkle'
import { checkDay, leafHash, rootOfHashes, toHex, type PublishedDay } from '../web/merkle'
import { rng } from './indicators-synthetic'


// non-ASCII on purpose: the leaf bytes are the text's UTF-8, not its UTF-16 code units
const WORDS = ['BTCUSDT', 'tp', 'sl', '손절', 'timeout', '0.288619', 'é', '🙂', '"q"', '\\', '']

function randomLeaves(r: () => number, n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const fields = Array.from({ length: 1 + Math.floor(r() * 5) }, (_, k) => `"f${k}":${JSON.stringify(WORDS[Math.floor(r() * WORDS.length)]! + Math.floor(r() * 1e6))}`)
    return `{"i":${i},${fields.join(',')}}`
  })
}

function published(leaves: string[]): PublishedDay {
  const root = merkleRoot(leaves)
  return { root: root === null ? null : serverHex(root), leaf_count: leaves.length, leaves: leaves.map((leaf, index) => ({ index, leaf, leaf_hash: serverHex(serverLeafHash(leaf)) })) }
}

describe('the page’s Merkle tree', () => {
  test('equals the server’s root on random leaf sets of 0 to 40 leaves', async () => {
    const r = rng(6962)
    for (let n = 0; n <= 40; n++) {
      for (let rep = 0; rep < 3; rep++) {
        const leaves = randomLeaves(r, n)
        const hashes = await Promise.all(leaves.map(leafHash))
        hashes.forEach((h, i) => expect(toHex(h)).toBe(serverHex(serverLeafHash(leaves[i]!))))
        const mine = await rootOfHashes(hashes)
        const theirs = merkleRoot(leaves)
        expect(mine === null ? null : toHex(mine)).toBe(theirs === null ? null : serverHex(theirs))
        const check = await checkDay(published(leaves))
        expect(check).toEqual({ computedRoot: theirs === null ? null : serverHex(theirs), match: true, badLeaves: [], countOk: true })
      }
    }
  })

  test('a day with no leaves has no root, and a root published for no leaves is a mismatch', async () => {
    expect(await rootOfHashes([])).toBeNull()
    expect((await checkDay({ root: null, leaf_count: 0, leaves: [] })).match).toBe(true)
    expect((await checkDay({ root: 'ab'.repeat(32), leaf_count: 0, leaves: [] })).match).toBe(false)
  })

  test('one changed leaf text: its own hash and the root no longer match', async () => {
    const day = published(randomLeaves(rng(1), 13))
    const leaves = day.leaves.map(l => (l.index === 7 ? { ...l, leaf: l.leaf.replace('"i":7', '"i":70') } : l))
    const check = await checkDay({ ...day, leaves })
    expect(check.match).toBe(false)
    expect(check.badLeaves).toEqual([7])
    expect(check.computedRoot).not.toBe(day.root)
  })

  test('a changed leaf with its hash changed to fit still fails on the root', async () => {
    const day = published(randomLeaves(rng(2), 9))
    const leaf = day.leaves[3]!.leaf.replace('"i":3', '"i":30')
    const leaves = day.leaves.map(l => (l.index === 3 ? { ...l, leaf, leaf_hash: serverHex(serverLeafHash(leaf)) } : l))
    const check = await checkDay({ ...day, leaves })
    expect(check.badLeaves).toEqual([])
    expect(check.match).toBe(false)
  })

  test('two leaves swapped, a leaf left out or a wrong count: mismatch', async () => {
    const day = published(randomLeaves(rng(3), 6))
    const swapped = [day.leaves[1]!, day.leaves[0]!, ...day.leaves.slice(2)].map((l, index) => ({ ...l, index }))
    expect((await checkDay({ ...day, leaves: swapped })).match).toBe(false)
    const dropped = day.leaves.slice(0, 5)
    expect((await checkDay({ ...day, leaves: dropped, leaf_count: 5 })).match).toBe(false)
    expect((await checkDay({ ...day, leaf_count: 7 })).countOk).toBe(false)
    // upper-case hex is still the same hash
    expect((await checkDay({ ...day, root: day.root!.toUpperCase() })).match).toBe(true)
  })
})
