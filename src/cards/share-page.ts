/**
 * The /share landing page: social-preview meta tags with the recomputed figures, an
 * og:image pointing at /og with the same settings, and a redirect (meta refresh plus a
 * visible link) for people to the simulator page with the settings in its query.
 * Every echoed value goes through escapeMarkup or safeUrlAttr.
 */
import { formatFigures, nameIn, settingsLine, type CardFigures } from './card-figures'
import { CARD_HEIGHT, CARD_WIDTH } from './card-svg'
import { escapeMarkup as esc, safeUrlAttr as url } from './escape'
import { LABELS, type Lang } from './labels'

export interface ShareLinks {
  /** absolute /share URL of these settings (og:url) */
  page: string
  /** absolute /og URL of the same settings */
  image: string
  /** the simulator page with the settings in its query */
  simulator: string
}

export function sharePage(f: CardFigures, lang: Lang, links: ShareLinks): string {
  const L = LABELS[lang]
  const title = L.shareTitle(nameIn(f, lang), L.direction[f.direction])
  const figures =
    f.trades === 0 ? `${L.noTrades}. ${L.disclaimer}` : `${f.ruinedOn === null ? '' : `${L.ruinedOn(f.ruinedOn)}. `}${L.shareDescription(formatFigures(f))}`
  const description = `${figures} ${settingsLine(f.settings, lang)}.`
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${esc(title)}</title>
<meta name="description" content="${esc(description)}">
<meta property="og:type" content="website">
<meta property="og:site_name" content="perpsim">
<meta property="og:title" content="${esc(title)}">
<meta property="og:description" content="${esc(description)}">
<meta property="og:url" content="${url(links.page)}">
<meta property="og:image" content="${url(links.image)}">
<meta property="og:image:type" content="image/png">
<meta property="og:image:width" content="${CARD_WIDTH}">
<meta property="og:image:height" content="${CARD_HEIGHT}">
<meta property="og:locale" content="${lang === 'ko' ? 'ko_KR' : 'en_US'}">
<meta name="twitter:card" content="summary_large_image">
<meta name="twitter:title" content="${esc(title)}">
<meta name="twitter:description" content="${esc(description)}">
<meta name="twitter:image" content="${url(links.image)}">
<meta http-equiv="refresh" content="0; url=${url(links.simulator)}">
</head>
<body>
<p>${esc(L.redirecting)}</p>
<p><a href="${url(links.simulator)}">${esc(L.openSimulator)}</a></p>
<p>${esc(description)}</p>
</body>
</html>
`
}

/** The 404 page of /share: the unknown id is echoed, escaped. */
export function unknownSharePage(id: string, lang: Lang, home: string): string {
  const msg = lang === 'ko' ? `알 수 없는 전략 또는 프리셋: ${id}` : `Unknown strategy or preset: ${id}`
  return `<!doctype html>
<html lang="${lang}">
<head><meta charset="utf-8"><meta name="robots" content="noindex, nofollow"><title>${esc(msg)}</title></head>
<body><p>${esc(msg)}</p><p><a href="${url(home)}">perpsim</a></p></body>
</html>
`
}
