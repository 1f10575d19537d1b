/**
 * The built page held in memory: index.html and its hashed assets, each with its
 * content type, an ETag and a gzipped copy (compressed once, at load).
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { extname, join } from 'node:path'
import { locatePage } from './build'

export interface PageFile {
  body: Uint8Array<ArrayBuffer>
  gzip: Uint8Array<ArrayBuffer>
  type: string
  etag: string
}

export interface PageAssets {
  index: PageFile
  /** hashed assets by file name (served under STATIC_PREFIX) */
  files: ReadonlyMap<string, PageFile>
  dir: string
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
}

function pageFile(path: string): PageFile {
  const body = new Uint8Array(readFileSync(path))
  return {
    body,
    gzip: new Uint8Array(Bun.gzipSync(body, { level: 9 })),
    type: TYPES[extname(path)] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 20)}"`,
  }
}

/** Read a built page folder into memory. */
export function loadPageDir(dir: string): PageAssets {
  const files = new Map<string, PageFile>()
  for (const name of readdirSync(dir)) if (name !== 'index.html') files.set(name, pageFile(join(dir, name)))
  return { index: pageFile(join(dir, 'index.html')), files, dir }
}

let loading: Promise<PageAssets> | null = null

/** The page for this process: located (built when needed) once, then kept. A failed build is retried on the next call. */
export function pageAssets(): Promise<PageAssets> {
  if (!loading) {
    loading = locatePage().then(loadPageDir)
    loading.catch(() => {
      loading = null
    })
  }
  return loading
}
