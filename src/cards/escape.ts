/**
 * Escaping for every place a card, the share page or a mail echoes a value: markup text
 * and quoted attribute values (the same five characters cover both, in HTML and SVG),
 * and URLs (only http(s) URLs we build ourselves are ever put in an href or src).
 */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Text or a double/single-quoted attribute value in HTML or SVG. */
export function escapeMarkup(value: string): string {
  return value.replace(/[&<>"']/g, c => ENTITIES[c])
}

/**
 * A URL to put in an attribute: only absolute http(s) URLs pass (a `javascript:` or
 * `data:` URL can never come through), then it is escaped as an attribute value.
 */
export function safeUrlAttr(url: string): string {
  const u = new URL(url)
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`refusing a non-http(s) URL: ${u.protocol}`)
  return escapeMarkup(u.toString())
}
