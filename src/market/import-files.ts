/**
 * Finding and opening the files `data import` is given: folders are walked recursively,
 * `.csv.gz` / `.zip` are recognised by their magic bytes (not only by name), and a zip
 * may hold several CSVs, each imported as a file of its own.
 * What a file is about comes from its name, the way Binance names them:
 * `BTCUSDT.csv.gz`, `BTCUSDT-1h-2024-01.zip`, `BTCUSDT-fundingRate-2024-01.csv`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { unzipSync } from 'fflate'

/** one CSV to import: a plain file, a gunzipped file, or a zip member */
export interface CsvSource {
  /** shown in reports: the path, or `archive.zip:member.csv` */
  label: string
  /** the CSV's own file name (the member name inside a zip) */
  name: string
  /** the file name on disk (the zip's for members) */
  outerName: string
  bytes: Uint8Array
}

export class FileError extends Error {}

const IMPORTABLE = /\.(csv|csv\.gz|gz|zip|json)$/i

/** Expand `paths` into files: folders recursively (importable names only), in name order. */
export function listImportFiles(paths: string[]): { files: string[]; missing: { path: string; reason: string }[] } {
  const files: string[] = []
  const missing: { path: string; reason: string }[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.')) continue
      const p = join(dir, entry.name)
      if (entry.isDirectory()) walk(p)
      else if (IMPORTABLE.test(entry.name)) files.push(p)
    }
  }
  for (const p of paths) {
    let isDir: boolean
    try {
      isDir = statSync(p).isDirectory()
    } catch {
      missing.push({ path: p, reason: 'no such file or folder' })
      continue
    }
    if (isDir) walk(p)
    else if (IMPORTABLE.test(p)) files.push(p)
    else missing.push({ path: p, reason: 'not a .csv, .csv.gz, .zip or .json file' })
  }
  return { files: [...new Set(files)], missing }
}

function isGzip(b: Uint8Array): boolean {
  return b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b
}

function isZip(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04
}

/** The CSV texts inside one file on disk. */
export function readCsvSources(path: string): CsvSource[] {
  const bytes = new Uint8Array(readFileSync(path))
  const outerName = basename(path)
  if (isZip(bytes)) {
    let members: Record<string, Uint8Array>
    try {
      members = unzipSync(bytes, { filter: f => /\.csv$/i.test(f.name) && !f.name.includes('__MACOSX') })
    } catch (e) {
      throw new FileError(`not a readable zip archive (${(e as Error).message})`)
    }
    const names = Object.keys(members).sort()
    if (names.length === 0) throw new FileError('the zip archive holds no .csv file')
    return names.map(m => ({ label: `${path}:${m}`, name: basename(m), outerName, bytes: members[m] }))
  }
  if (isGzip(bytes)) {
    let raw: Uint8Array
    try {
      raw = Bun.gunzipSync(bytes)
    } catch (e) {
      throw new FileError(`not readable gzip data (${(e as Error).message})`)
    }
    return [{ label: path, name: outerName, outerName, bytes: raw }]
  }
  return [{ label: path, name: outerName, outerName, bytes }]
}

function stem(name: string): string {
  return basename(name).replace(/(\.(csv|gz|zip))+$/i, '')
}

/**
 * The symbol a file is about: the name up to the first `-`, `_` or `.`, upper-cased,
 * when it looks like a USDT perpetual (`BTCUSDT`, `1000PEPEUSDT`).
 */
export function symbolFromFileName(name: string): string | null {
  const head = stem(name).split(/[-_.]/)[0].toUpperCase()
  return /^[A-Z0-9]+USDT$/.test(head) && head.length > 4 ? head : null
}

/** the interval token of Binance's names (`BTCUSDT-1h-2024-01`), or null when there is none */
export function intervalFromFileName(name: string): string | null {
  const m = /-(\d+(?:s|m|h|d|w|mo|M))(?:-|$)/.exec(stem(name))
  return m ? m[1] : null
}
