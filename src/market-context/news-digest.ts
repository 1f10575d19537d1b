/**
 * GET /news: items of every configured feed, deduplicated (same link, or same title),
 * newest first. Each feed is cached on its own, so one dead feed costs only its items.
 */
import type { FeedItem } from '../upstream/news-feed'
import { missingLabel, summarize, upstreamLabel, type Label } from './labels'
import { isoInstant } from '../time'
import type { CacheRead } from './swr-cache'

export const NEWS_MAX_ITEMS = 100

export interface NewsItem {
  title: string
  source: string
  url: string
  /** ISO 8601 */
  published: string
  /** when the feed carrying it was fetched */
  as_of: string
  stale: boolean
}

export interface NewsDigest {
  items: NewsItem[]
  as_of: string | null
  stale: boolean
  /** one label per configured feed URL */
  feeds: Record<string, Label>
  missing_sources: string[]
}

export function composeNews(nowMs: number, feeds: { url: string; read: CacheRead<FeedItem[]> }[]): NewsDigest {
  const labels: Record<string, Label> = {}
  const missing: string[] = []
  const all: NewsItem[] = []
  for (const { url, read } of feeds) {
    if (!read.value) {
      labels[url] = missingLabel(read.error)
      missing.push(url)
      continue
    }
    labels[url] = upstreamLabel(read, nowMs)
    const asOf = isoInstant(read.fetchedAtMs!)
    for (const it of read.value) all.push({ title: it.title, source: it.source, url: it.url, published: isoInstant(it.publishedMs), as_of: asOf, stale: read.stale })
  }
  all.sort((a, b) => (a.published < b.published ? 1 : a.published > b.published ? -1 : 0))
  const seenUrl = new Set<string>()
  const seenTitle = new Set<string>()
  const items: NewsItem[] = []
  for (const it of all) {
    const u = canonicalUrl(it.url)
    const t = it.title.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()
    if (seenUrl.has(u) || seenTitle.has(t)) continue
    seenUrl.add(u)
    seenTitle.add(t)
    items.push(it)
    if (items.length >= NEWS_MAX_ITEMS) break
  }
  const summary = summarize(Object.values(labels))
  return { items, ...summary, feeds: labels, missing_sources: missing }
}

/** The same article under tracking parameters, another scheme or a trailing slash is one article. */
export function canonicalUrl(url: string): string {
  try {
    const u = new URL(url)
    for (const k of [...u.searchParams.keys()]) if (/^(utm_|ref$|source$|fbclid$|gclid$)/i.test(k)) u.searchParams.delete(k)
    u.hash = ''
    const path = u.pathname.replace(/\/+$/, '')
    const q = u.searchParams.toString()
    return `${u.hostname.replace(/^www\./, '').toLowerCase()}${path}${q ? `?${q}` : ''}`
  } catch {
    return url
  }
}
