/**
 * /og and /share as a service: settings → the run (through the run pipeline's result
 * cache, the one /simulate uses) → card figures → PNG or HTML. Rendered PNGs are kept in a small
 * LRU keyed by their ETag (normalised run, data version, language, card layout version).
 */
import { createHash } from 'node:crypto'
import type { CardFigures, CardSettings } from '../../cards/card-figures'
import { cardSvg } from '../../cards/card-svg'
import type { Lang } from '../../cards/labels'
import { renderPng } from '../../cards/render-png'
import { sharePage, unknownSharePage, type ShareLinks } from '../../cards/share-page'
import type { Direction } from '../../engine/types'
import type { CandleStore } from '../../market/candle-store'
import { InvalidRequest, UnknownStrategy } from '../../runs/errors'
import type { RunService } from '../../runs/service'
import { dateProblems, resultHash } from '../../runs/spec'
import { cardRun, type CardRun } from './card-run'
import type { OgQuery, ShareQuery } from './model'
import { isoDay } from '../../time'

/** bump when the card's drawing changes, so cached cards and ETags turn over */
const CARD_LAYOUT_VERSION = 2
const PNG_CACHE_SIZE = 64
/** how long clients and proxies may reuse a card or page without asking again */
export const CARD_MAX_AGE_S = 600

export interface CardDeps {
  runs: RunService
  store: CandleStore
}

/** If-None-Match names this ETag (weak or strong, in a list) */
const matches = (ifNoneMatch: string | null, etag: string) => !!ifNoneMatch && ifNoneMatch.split(',').some(t => t.trim().replace(/^W\//, '') === etag)

function settingsOf(q: OgQuery | ShareQuery): CardSettings {
  const problems = dateProblems(q.from ?? null, q.to ?? null)
  if (problems.length)
    throw new InvalidRequest(problems.map(p => ({ loc: ['query', p.loc[1] === 'start_date' ? 'from' : 'to'], msg: p.msg.replace('end_date', 'to').replace('start_date', 'from'), input: p.input })))
  return { slPct: q.sl, tpPct: q.tp, leverage: q.lev, feePct: q.fee, topN: q.topN, from: q.from ?? null, to: q.to ?? null, timeframe: q.tf, maxBars: q.bars ?? null }
}

/** The settings as a canonical query (every value explicit, fixed order): links and og:url use it. */
export function settingsQuery(run: CardRun, lang: Lang, idParam: 'strategy' | 'preset'): URLSearchParams {
  const s = run.settings
  const q = new URLSearchParams()
  q.set(idParam, run.id)
  q.set('dir', run.direction)
  q.set('sl', String(s.slPct))
  q.set('tp', String(s.tpPct))
  q.set('topN', String(s.topN))
  q.set('lev', String(s.leverage))
  q.set('fee', String(s.feePct))
  if (s.from) q.set('from', s.from)
  if (s.to) q.set('to', s.to)
  if (s.timeframe !== '1H') q.set('tf', s.timeframe)
  if (s.maxBars !== null) q.set('bars', String(s.maxBars))
  q.set('lang', lang)
  return q
}

export class CardService {
  private readonly png = new Map<string, Uint8Array>()
  private readonly rendering = new Map<string, Promise<Uint8Array>>()

  constructor(private readonly deps: CardDeps) {}

  private run(id: string, dir: Direction | undefined, defaultDir: Direction, q: OgQuery | ShareQuery): CardRun {
    const run = cardRun(id, dir, defaultDir, settingsOf(q))
    // the universe /simulate decides for the same settings (a card has no universe field: the default rule)
    return { ...run, spec: this.deps.runs.withUniverse(run.spec, {}) }
  }

  /** ETag of a card: changes with the normalised run, the data, the language and the layout. */
  private etagOf(run: CardRun, lang: Lang, page = ''): string {
    const h = resultHash(run.spec, this.deps.store.dataVersion())
    return `"${createHash('sha256').update(`${h}:${lang}:${CARD_LAYOUT_VERSION}:${page}`).digest('hex').slice(0, 32)}"`
  }

  /** The recomputed figures of a run, through the run pipeline's cache (metrics only: the statistics are not needed). */
  async figures(run: CardRun): Promise<CardFigures> {
    const r = await this.deps.runs.run(run.spec, { statistics: false })
    const m = r.assembled.metrics
    const curve = r.assembled.portfolio.equityCurve
    return {
      name: run.name,
      nameKo: run.nameKo,
      direction: run.direction,
      status: run.status,
      settings: run.settings,
      winRatePct: m.win_rate,
      profitFactor: m.profit_factor,
      profitFactorCapped: m.profit_factor_capped,
      totalReturnPct: m.total_return_pct,
      maxDrawdownPct: m.max_drawdown_pct,
      ruinedOn: r.assembled.portfolio.ruinedAtMs === null ? null : isoDay(r.assembled.portfolio.ruinedAtMs),
      trades: m.total_trades,
      equityReturnPct: curve.map(p => p.returnPct),
      dataSpan: curve.length ? { from: isoDay(curve[0].tMs), to: isoDay(curve[curve.length - 1].tMs) } : null,
    }
  }

  /**
   * The card for /og: `notModified` when the caller's If-None-Match already names it
   * (nothing is computed then), else the PNG.
   */
  async card(q: OgQuery, ifNoneMatch: string | null): Promise<{ etag: string; png: Uint8Array | null }> {
    const run = this.run(q.strategy, q.dir, 'short', q)
    const etag = this.etagOf(run, q.lang)
    if (matches(ifNoneMatch, etag)) return { etag, png: null }
    const hit = this.png.get(etag)
    if (hit) {
      this.png.delete(etag)
      this.png.set(etag, hit)
      return { etag, png: hit }
    }
    let p = this.rendering.get(etag)
    if (!p) {
      p = this.figures(run)
        .then(f => renderPng(cardSvg(f, q.lang), q.lang))
        .then(png => {
          this.png.set(etag, png)
          while (this.png.size > PNG_CACHE_SIZE) this.png.delete(this.png.keys().next().value!)
          return png
        })
        .finally(() => this.rendering.delete(etag))
      this.rendering.set(etag, p)
    }
    return { etag, png: await p }
  }

  /**
   * The /share page; for an id that is neither a strategy nor a preset, the 404 page a
   * browser shows (`unknown`: a person followed the link, so the answer is HTML, not JSON).
   */
  async share(q: ShareQuery, baseUrl: string, ifNoneMatch: string | null): Promise<{ etag: string; html: string | null; unknown?: true }> {
    let run: CardRun
    try {
      run = this.run(q.preset, q.dir, 'long', q)
    } catch (e) {
      if (!(e instanceof UnknownStrategy)) throw e
      return { etag: '', html: unknownSharePage(e.id, q.lang, `${baseUrl}/`), unknown: true }
    }
    const etag = this.etagOf(run, q.lang, `share ${baseUrl}`)
    if (matches(ifNoneMatch, etag)) return { etag, html: null }
    const f = await this.figures(run)
    const links: ShareLinks = {
      page: `${baseUrl}/share?${settingsQuery(run, q.lang, 'preset')}`,
      image: `${baseUrl}/og?${settingsQuery(run, q.lang, 'strategy')}`,
      simulator: `${baseUrl}/?${settingsQuery(run, q.lang, run.kind === 'preset' ? 'preset' : 'strategy')}`,
    }
    return { etag, html: sharePage(f, q.lang, links) }
  }
}
