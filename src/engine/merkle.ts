/**
 * Merkle trees as RFC 6962 §2.1 defines them (the Certificate Transparency tree):
 *   leaf hash  = SHA-256(0x00 ‖ leaf)
 *   node hash  = SHA-256(0x01 ‖ left ‖ right)
 *   MTH(D[n])  = node(MTH(D[0:k]), MTH(D[k:n])), k = the largest power of two < n
 * The 0x00/0x01 prefixes keep a leaf from ever passing for an inner node, and the split
 * never duplicates a node (the old service's "copy the last hash up" tree could be made
 * to give one root for two different leaf lists). Audit paths are RFC 6962 §2.1.1's
 * PATH(m, D[n]); verification is RFC 9162 §2.1.3.2's algorithm. Pure: no I/O.
 */
import { createHash } from 'node:crypto'

export const MERKLE_ALGORITHM = 'rfc6962-sha256'

const LEAF_PREFIX = new Uint8Array([0x00])
const NODE_PREFIX = new Uint8Array([0x01])

/** SHA-256(0x00 ‖ leaf); a string leaf is hashed as its UTF-8 bytes. */
export function leafHash(leaf: string | Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(LEAF_PREFIX).update(leaf).digest())
}

/** SHA-256(0x01 ‖ left ‖ right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest())
}

/** The largest power of two strictly below n (n ≥ 2). */
export function splitPoint(n: number): number {
  let k = 1
  while (k * 2 < n) k *= 2
  return k
}

/** MTH over already-hashed leaves; null for an empty list (the service publishes no root then). */
export function rootOfHashes(hashes: readonly Uint8Array[]): Uint8Array | null {
  if (hashes.length === 0) return null
  return subtreeRoot(hashes, 0, hashes.length)
}

/** MTH over raw leaves. */
export function merkleRoot(leaves: readonly (string | Uint8Array)[]): Uint8Array | null {
  return rootOfHashes(leaves.map(l => leafHash(l)))
}

function subtreeRoot(hashes: readonly Uint8Array[], from: number, to: number): Uint8Array {
  const n = to - from
  if (n === 1) return hashes[from]!
  const k = splitPoint(n)
  return nodeHash(subtreeRoot(hashes, from, from + k), subtreeRoot(hashes, from + k, to))
}

/**
 * PATH(m, D[n]): the sibling hashes from leaf m up to the root, nearest first.
 * Throws RangeError for an index outside the tree.
 */
export function auditPath(hashes: readonly Uint8Array[], index: number): Uint8Array[] {
  if (!Number.isInteger(index) || index < 0 || index >= hashes.length) {
    throw new RangeError(`leaf index ${index} outside a tree of ${hashes.length} leaves`)
  }
  const path: Uint8Array[] = []
  let from = 0
  let to = hashes.length
  let m = index
  // walk down from the root, collecting the other side at each split; reversed at the end
  while (to - from > 1) {
    const k = splitPoint(to - from)
    if (m < k) {
      path.push(subtreeRoot(hashes, from + k, to))
      to = from + k
    } else {
      path.push(subtreeRoot(hashes, from, from + k))
      from += k
      m -= k
    }
  }
  return path.reverse()
}

/**
 * RFC 9162 §2.1.3.2: does `path` prove that the leaf with hash `leaf` is leaf `index` of a
 * tree of `treeSize` leaves with root `root`?
 */
export function verifyAuditPath(
  leaf: Uint8Array,
  index: number,
  treeSize: number,
  path: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!Number.isInteger(index) || !Number.isInteger(treeSize) || index < 0 || index >= treeSize) return false
  let fn = index
  let sn = treeSize - 1
  let r = leaf
  for (const p of path) {
    if (sn === 0) return false
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r)
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2)
          sn = Math.floor(sn / 2)
        }
      }
    } else {
      r = nodeHash(r, p)
    }
    fn = Math.floor(fn / 2)
    sn = Math.floor(sn / 2)
  }
  return sn === 0 && equalBytes(r, root)
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex')
}

/** Lower-case hex of exactly 32 bytes, or null. */
export function fromHex32(hex: string): Uint8Array | null {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return null
  return new Uint8Array(Buffer.from(hex, 'hex'))
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
