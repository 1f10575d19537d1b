/**
 * RFC 6962 day roots recomputed in the browser with WebCrypto, so a visitor can check a
 * published root without trusting the server's arithmetic (docs/trust.md):
 *   leaf hash = SHA-256(0x00 ‖ leaf bytes), the leaf being the canonical JSON text as UTF-8
 *   node hash = SHA-256(0x01 ‖ left ‖ right)
 *   n > 1 leaves split at k, the largest power of two below n; no leaves: no root (null).
 * The same tree as src/engine/merkle.ts (tests/web-merkle.test.ts compares the two), written
 * again here because the page bundles nothing of the server's code.
 */

async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  const buf = new Uint8Array(parts.reduce((a, p) => a + p.length, 0))
  let at = 0
  for (const p of parts) {
    buf.set(p, at)
    at += p.length
  }
  return new Uint8Array(await crypto.subtle.digest('SHA-256', buf))
}

const LEAF = new Uint8Array([0x00])
const NODE = new Uint8Array([0x01])

export async function leafHash(leaf: string): Promise<Uint8Array> {
  return sha256(LEAF, new TextEncoder().encode(leaf))
}

async function subtree(hashes: readonly Uint8Array[], from: number, to: number): Promise<Uint8Array> {
  const n = to - from
  if (n === 1) return hashes[from]!
  let k = 1
  while (k * 2 < n) k *= 2
  return sha256(NODE, await subtree(hashes, from, from + k), await subtree(hashes, from + k, to))
}

/** the tree's root over leaf hashes; null for no leaves */
export async function rootOfHashes(hashes: readonly Uint8Array[]): Promise<Uint8Array | null> {
  return hashes.length === 0 ? null : subtree(hashes, 0, hashes.length)
}

export function toHex(b: Uint8Array): string {
  let s = ''
  for (const x of b) s += x.toString(16).padStart(2, '0')
  return s
}

/** what /trust/merkle/{date}/leaves answers, as far as the check reads it */
export interface PublishedDay {
  root: string | null
  leaf_count: number
  leaves: readonly { index: number; leaf: string; leaf_hash: string }[]
}

export interface DayCheck {
  /** the root recomputed from the leaves' texts (null: no leaves) */
  computedRoot: string | null
  /** it equals the published root, every leaf's published hash is its text's hash, and the count and order hold */
  match: boolean
  /** indexes of leaves whose published hash is not the hash of their text */
  badLeaves: number[]
  /** the published leaf_count equals the number of leaves, listed in index order 0..n-1 */
  countOk: boolean
}

/** Recompute a day's root from its leaves' own texts and compare it and every leaf hash with what was published. */
export async function checkDay(day: PublishedDay): Promise<DayCheck> {
  const hashes = await Promise.all(day.leaves.map(l => leafHash(l.leaf)))
  const badLeaves = day.leaves.filter((l, i) => toHex(hashes[i]!) !== l.leaf_hash.toLowerCase()).map(l => l.index)
  const root = await rootOfHashes(hashes)
  const computedRoot = root === null ? null : toHex(root)
  const countOk = day.leaf_count === day.leaves.length && day.leaves.every((l, i) => l.index === i)
  const rootOk = computedRoot === (day.root === null ? null : day.root.toLowerCase())
  return { computedRoot, match: rootOk && countOk && badLeaves.length === 0, badLeaves, countOk }
}
