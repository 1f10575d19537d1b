/**
 * The store's margin brackets (issue 25 §3): snapshots under `<store>/brackets/`, one
 * file per import or sync (`<asOf ms>-<source>.json`: when the tiers were taken, where
 * from, the brackets by symbol), written atomically and never rewritten, so a store
 * records which tiers it used and when. A symbol's brackets are those of the newest
 * snapshot that lists it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { ensureDir, writeFileAtomic } from './segment-file'
import type { MarginBracket } from './types'

export type BracketSource = 'import' | 'ccxt' | 'synthetic'

export interface BracketSnapshot {
  version: 1
  /** when the tiers were taken (the file's time for an import), epoch ms */
  asOfMs: number
  source: BracketSource
  brackets: Record<string, MarginBracket[]>
}

export interface BracketInfo {
  brackets: MarginBracket[]
  asOfMs: number
  source: BracketSource
}

export class BracketBook {
  private bySymbol = new Map<string, BracketInfo>()
  private files: string[] = []

  private constructor(private readonly dir: string) {}

  static open(dir: string): BracketBook {
    const book = new BracketBook(dir)
    if (existsSync(dir)) {
      book.files = readdirSync(dir).filter(f => /^\d+-[a-z]+\.json$/.test(f)).sort((a, b) => parseInt(a) - parseInt(b) || a.localeCompare(b))
      for (const f of book.files) book.apply(JSON.parse(readFileSync(join(dir, f), 'utf8')) as BracketSnapshot)
    }
    return book
  }

  private apply(s: BracketSnapshot): void {
    for (const [symbol, brackets] of Object.entries(s.brackets)) this.bySymbol.set(symbol, { brackets, asOfMs: s.asOfMs, source: s.source })
  }

  get(symbol: string): BracketInfo | undefined {
    return this.bySymbol.get(symbol)
  }

  symbols(): string[] {
    return [...this.bySymbol.keys()].sort()
  }

  /** Write a new snapshot (never replacing one) and apply it. */
  add(snapshot: Omit<BracketSnapshot, 'version'>): string {
    ensureDir(this.dir)
    let name = `${Math.round(snapshot.asOfMs)}-${snapshot.source}.json`
    for (let k = 1; this.files.includes(name) || existsSync(join(this.dir, name)); k++) name = `${Math.round(snapshot.asOfMs) + k}-${snapshot.source}.json`
    const full: BracketSnapshot = { version: 1, ...snapshot }
    writeFileAtomic(join(this.dir, name), JSON.stringify(full))
    this.files.push(name)
    this.apply(full)
    return name
  }

  /** digest of the snapshots held: part of the store's data version */
  version(): string {
    return this.files.length ? createHash('sha256').update(this.files.join(',')).digest('hex').slice(0, 8) : ''
  }
}
