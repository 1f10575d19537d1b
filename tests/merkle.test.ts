import { describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import {
  auditPath, leafHash, merkleRoot, nodeHash, rootOfHashes, splitPoint, toHex, verifyAuditPath,
} from '../src/engine/merkle'

// Hashes written out by hand, independently of src/engine/merkle.ts
const sha = (...parts: Uint8Array[]) => {
  const h = createHash('sha256')
  for (const p of parts) h.update(p)
  return new Uint8Array(h.digest())
}
const L = (s: string) => sha(new Uint8Array([0]), new TextEncoder().encode(s))
const N = (a: Uint8Array, b: Uint8Array) => sha(new Uint8Array([1]), a, b)
const hex = (b: Uint8Array | null) => (b ? Buffer.from(b).toString('hex') : null)

const leaves = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']
const [a, b, c, d, e, f, g, h] = leaves.map(L) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array]

describe('RFC 6962 tree hash', () => {
  test('a leaf is hashed with the 0x00 prefix and a node with 0x01', () => {
    expect(hex(leafHash('a'))).toBe(hex(a))
    expect(hex(leafHash('a'))).toBe('022a6979e6dab7aa5ae4c3e5e45f7e977112a7e63593820dbec1ec738a24f93c')
    expect(hex(nodeHash(a, b))).toBe(hex(N(a, b)))
    // a leaf never equals the node of the same bytes
    expect(hex(leafHash(new Uint8Array([...a, ...b])))).not.toBe(hex(N(a, b)))
  })

  test('the split is the largest power of two below n', () => {
    expect([2, 3, 4, 5, 6, 8, 9, 16, 17].map(splitPoint)).toEqual([1, 2, 2, 4, 4, 4, 8, 8, 16])
  })

  test('1 leaf: the root is the leaf hash', () => {
    expect(hex(merkleRoot(['a']))).toBe(hex(a))
  })
  test('2 leaves: node(a, b)', () => {
    expect(hex(merkleRoot(leaves.slice(0, 2)))).toBe(hex(N(a, b)))
  })
  test('3 leaves: node(node(a, b), c), the odd leaf is not duplicated', () => {
    expect(hex(merkleRoot(leaves.slice(0, 3)))).toBe(hex(N(N(a, b), c)))
    expect(hex(merkleRoot(leaves.slice(0, 3)))).not.toBe(hex(N(N(a, b), N(c, c))))
  })
  test('5 leaves: node(node(node(a, b), node(c, d)), e)', () => {
    expect(hex(merkleRoot(leaves.slice(0, 5)))).toBe(hex(N(N(N(a, b), N(c, d)), e)))
  })
  test('8 leaves: the balanced tree', () => {
    expect(hex(merkleRoot(leaves))).toBe(hex(N(N(N(a, b), N(c, d)), N(N(e, f), N(g, h)))))
  })
  test('an empty list has no root', () => {
    expect(merkleRoot([])).toBeNull()
  })

  // The Certificate Transparency reference test vectors (merkle_tree_test.cc): leaves of
  // 0..16 bytes, roots of the first 1..8 of them
  test("the Certificate Transparency project's published roots", () => {
    const ct = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f']
      .map(x => new Uint8Array(Buffer.from(x, 'hex')))
    const roots = [
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
      'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
      'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
      '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
      '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
      'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
      '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
    ]
    for (let n = 1; n <= 8; n++) expect(hex(merkleRoot(ct.slice(0, n)))).toBe(roots[n - 1]!)
  })
})

describe('audit paths', () => {
  test('1 leaf: the path is empty', () => {
    expect(auditPath([a], 0)).toEqual([])
    expect(verifyAuditPath(a, 0, 1, [], a)).toBe(true)
  })
  test('2 leaves: each leaf is proven by the other', () => {
    expect(auditPath([a, b], 0).map(hex)).toEqual([hex(b)])
    expect(auditPath([a, b], 1).map(hex)).toEqual([hex(a)])
  })
  test('3 leaves: c is proven by node(a, b) alone; a by b then c', () => {
    expect(auditPath([a, b, c], 2).map(hex)).toEqual([hex(N(a, b))])
    expect(auditPath([a, b, c], 0).map(hex)).toEqual([hex(b), hex(c)])
  })
  test('5 leaves: e is proven by the root of the first four; c by d, node(a, b), e', () => {
    const five = [a, b, c, d, e]
    expect(auditPath(five, 4).map(hex)).toEqual([hex(N(N(a, b), N(c, d)))])
    expect(auditPath(five, 2).map(hex)).toEqual([hex(d), hex(N(a, b)), hex(e)])
  })
  test('8 leaves: f is proven by e, node(g, h), node(node(a, b), node(c, d))', () => {
    expect(auditPath([a, b, c, d, e, f, g, h], 5).map(hex)).toEqual([hex(e), hex(N(g, h)), hex(N(N(a, b), N(c, d)))])
  })

  test('every leaf of trees of 1 to 17 leaves verifies against its root, and only there', () => {
    for (let n = 1; n <= 17; n++) {
      const hashes = Array.from({ length: n }, (_, i) => L(`leaf ${i}`))
      const root = rootOfHashes(hashes)!
      for (let i = 0; i < n; i++) {
        const path = auditPath(hashes, i)
        expect(verifyAuditPath(hashes[i]!, i, n, path, root)).toBe(true)
        // wrong leaf, wrong index, tampered path: all refused (a size alone is not always
        // told apart: leaf 0 of 3 has the same path shape as leaf 0 of 4)
        expect(verifyAuditPath(L('intruder'), i, n, path, root)).toBe(false)
        if (n > 1) expect(verifyAuditPath(hashes[i]!, (i + 1) % n, n, path, root)).toBe(false)
        if (path.length > 0) {
          const bad = path.map(p => p.slice())
          bad[0]![0] ^= 1
          expect(verifyAuditPath(hashes[i]!, i, n, bad, root)).toBe(false)
        }
      }
    }
  })

  test('an index outside the tree has no path', () => {
    expect(() => auditPath([a, b], 2)).toThrow(RangeError)
    expect(verifyAuditPath(a, 2, 2, [b], N(a, b))).toBe(false)
  })
})

describe('hex', () => {
  test('hex of a hash is 64 lower-case characters', () => {
    expect(toHex(a)).toMatch(/^[0-9a-f]{64}$/)
  })
})
