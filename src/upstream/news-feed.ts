/**
 * RSS 2.0, RSS 1.0 (RDF) and Atom 1.0 news feeds, parsed with fast-xml-parser.
 * Items without a title, a link or a parseable date are dropped: an item we cannot date
 * cannot be placed in a newest-first list without inventing its time.
 */
import { XMLParser } from 'fast-xml-parser'
import { UpstreamError } from './errors'
import { httpGetText } from './http'

export const NEWS_SOURCE = 'rss'

export interface FeedItem {
  title: string
  /** the outlet, from the feed's own title (or its host name) */
  source: string
  url: string
  publishedMs: number
}

export interface NewsFeedClientOptions {
  timeoutMs: number
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  htmlEntities: true,
  isArray: name => name === 'item' || name === 'entry' || name === 'link',
})

export class NewsFeedClient {
  constructor(private readonly opts: NewsFeedClientOptions) {}

  async fetch(feedUrl: string): Promise<FeedItem[]> {
    const xml = await httpGetText(feedUrl, { source: NEWS_SOURCE, timeoutMs: this.opts.timeoutMs, headers: { accept: 'application/rss+xml, application/atom+xml, application/xml, text/xml' } })
    return parseFeed(xml, feedUrl)
  }
}

/** Parse one feed document; throws UpstreamError(malformed) when it is not a feed. */
export function parseFeed(xml: string, feedUrl: string): FeedItem[] {
  let doc: any
  try {
    doc = parser.parse(xml, true)
  } catch (e) {
    throw new UpstreamError(NEWS_SOURCE, 'malformed', `${feedUrl}: not well-formed XML: ${(e as Error).message}`)
  }
  const fallbackSource = hostName(feedUrl)
  if (doc?.rss?.channel) {
    const ch = doc.rss.channel
    return collect(ch.item ?? [], outletName(text(ch.title)) ?? fallbackSource, it => ({
      title: text(it.title),
      url: text(it.link?.[0]) || guidLink(it.guid),
      date: text(it.pubDate) || text(it['dc:date']),
    }))
  }
  if (doc?.feed) {
    const f = doc.feed
    return collect(f.entry ?? [], outletName(text(f.title)) ?? fallbackSource, e => ({
      title: text(e.title),
      url: atomLink(e.link),
      date: text(e.published) || text(e.updated),
    }))
  }
  if (doc?.['rdf:RDF']) {
    const r = doc['rdf:RDF']
    return collect(r.item ?? [], outletName(text(r.channel?.title)) ?? fallbackSource, it => ({
      title: text(it.title),
      url: text(it.link?.[0]),
      date: text(it['dc:date']),
    }))
  }
  throw new UpstreamError(NEWS_SOURCE, 'malformed', `${feedUrl}: neither an RSS nor an Atom document`)
}

function collect(items: unknown[], source: string, pick: (it: any) => { title: string; url: string; date: string }): FeedItem[] {
  const out: FeedItem[] = []
  for (const raw of items) {
    if (typeof raw !== 'object' || raw === null) continue
    const { title, url, date } = pick(raw)
    const publishedMs = Date.parse(date)
    const cleanTitle = cleanText(title)
    if (!cleanTitle || !/^https?:\/\//i.test(url) || !Number.isFinite(publishedMs)) continue
    out.push({ title: cleanTitle, source, url: url.trim(), publishedMs })
  }
  return out
}

/** text content of a parsed node: a string, a number, or an object with #text */
function text(node: unknown): string {
  if (typeof node === 'string') return node.trim()
  if (typeof node === 'number') return String(node)
  if (node && typeof node === 'object' && '#text' in node) return text((node as Record<string, unknown>)['#text'])
  return ''
}

function guidLink(guid: unknown): string {
  const g = text(guid)
  const permalink = guid && typeof guid === 'object' ? (guid as Record<string, unknown>)['@_isPermaLink'] : undefined
  return permalink !== 'false' && /^https?:\/\//i.test(g) ? g : ''
}

function atomLink(links: unknown): string {
  if (!Array.isArray(links)) return ''
  const hrefs = links.map(l => (typeof l === 'string' ? { rel: 'alternate', href: l } : { rel: (l as any)?.['@_rel'] ?? 'alternate', href: (l as any)?.['@_href'] ?? '' }))
  return (hrefs.find(l => l.rel === 'alternate' && l.href) ?? hrefs.find(l => l.href))?.href ?? ''
}

/** Titles often carry HTML (or HTML escaped once more): strip tags, decode entities, squeeze spaces. */
function cleanText(s: string): string {
  return decodeEntities(s.replace(/<[^>]*>/g, ' '))
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : m
    }
    return NAMED[e.toLowerCase()] ?? m
  })
}

/** "CoinDesk: Bitcoin, Ethereum, Crypto News and Price Data" -> "CoinDesk" */
function outletName(title: string): string | null {
  const t = cleanText(title)
  if (!t) return null
  const head = t.split(/\s+[-|–—]\s+|:\s+/)[0].trim()
  return head.length >= 2 ? head : t
}

function hostName(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '')
  } catch {
    return url
  }
}
