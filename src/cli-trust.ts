/**
 * `cli trust verify <leaf.json> --date YYYYMMDD [--url URL]` and
 * `cli realtrack import <csv>`.
 *
 * verify: the leaf file is either a record as served (any key order: it is re-serialised
 * canonically) or an entry of /trust/merkle/{date}/leaves (its `leaf` string is used as
 * is). Its hash is recomputed here, the audit path comes from the server (--url) or from
 * the local database, and the path is checked against the day's root by RFC 9162's
 * algorithm, all in this process: a server cannot vouch for itself.
 */
import { readFileSync } from 'node:fs'
import type { Db } from './db'
import { canonicalJson } from './engine/canonical-json'
import { auditPath, fromHex32, leafHash, toHex, verifyAuditPath } from './engine/merkle'
import { dayStartOf, dayView } from './records/merkle-leaves'
import { importNav, parseNavCsv } from './records/real-track'

export interface VerifyResult {
  ok: boolean
  leafHash: string
  date: string
  root: string | null
  index: number | null
  treeSize: number | null
  sealed: boolean | null
  message: string
}

/** The canonical leaf text of a leaf file's JSON. */
export function leafTextOf(json: unknown): string {
  if (json !== null && typeof json === 'object' && !Array.isArray(json)) {
    const o = json as Record<string, unknown>
    if (typeof o.leaf === 'string' && typeof o.leaf_hash === 'string') return o.leaf
  }
  return canonicalJson(json)
}

function check(date: string, hash: string, root: string | null, index: number, size: number, path: string[], sealed: boolean): VerifyResult {
  const rootBytes = root === null ? null : fromHex32(root)
  const pathBytes = path.map(fromHex32)
  const ok = rootBytes !== null && pathBytes.every(p => p !== null) && verifyAuditPath(fromHex32(hash)!, index, size, pathBytes as Uint8Array[], rootBytes)
  return {
    ok,
    leafHash: hash,
    date,
    root,
    index,
    treeSize: size,
    sealed,
    message: ok
      ? `verified: leaf ${hash} is leaf ${index} of ${size} on ${date}, root ${root}${sealed ? '' : ' (day not sealed yet: the root may still change)'}`
      : `NOT verified: the audit path does not lead from leaf ${hash} to root ${root}`,
  }
}

export async function verifyLeaf(leafText: string, date: string, source: { url: string } | { db: Db }): Promise<VerifyResult> {
  const hash = toHex(leafHash(leafText))
  const fail = (message: string): VerifyResult => ({ ok: false, leafHash: hash, date, root: null, index: null, treeSize: null, sealed: null, message })
  if ('url' in source) {
    const base = source.url.replace(/\/+$/, '')
    const res = await fetch(`${base}/trust/merkle/${date}/proof?leaf=${hash}`)
    if (res.status === 404) return fail(`NOT verified: the server lists no leaf ${hash} on ${date}`)
    if (!res.ok) return fail(`NOT verified: the server answered ${res.status}: ${await res.text()}`)
    const p = (await res.json()) as { root: string; leaf_index: number; tree_size: number; audit_path: string[]; sealed: boolean }
    const day = (await (await fetch(`${base}/trust/merkle/${date}`)).json()) as { root: string | null }
    if (day.root !== p.root) return fail(`NOT verified: the proof's root ${p.root} differs from the published root ${day.root}`)
    return check(date, hash, p.root, p.leaf_index, p.tree_size, p.audit_path, p.sealed)
  }
  const dayMs = dayStartOf(date)
  if (dayMs === null) return fail(`--date ${date}: expected a UTC day as YYYYMMDD`)
  const v = await dayView(source.db, date, dayMs, [])
  const index = v.leaves.findIndex(l => l.leafHash === hash)
  if (index < 0) return fail(`NOT verified: the local database holds no leaf ${hash} on ${date}`)
  const hashes = v.leaves.map(l => fromHex32(l.leafHash)!)
  return check(date, hash, v.root, index, v.leaves.length, auditPath(hashes, index).map(toHex), v.sealed)
}

export function readLeafFile(path: string): string {
  return leafTextOf(JSON.parse(readFileSync(path, 'utf8')))
}

export async function importNavFile(db: Db, path: string, nowMs: number): Promise<{ added: number; rows: number; errors: string[] }> {
  const { rows, errors } = parseNavCsv(readFileSync(path, 'utf8'))
  if (errors.length) return { added: 0, rows: rows.length, errors }
  return { added: await importNav(db, rows, nowMs), rows: rows.length, errors }
}
