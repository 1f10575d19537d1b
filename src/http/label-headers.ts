/** The envelope labels repeated as response headers (the only place for them on array answers like /news). */
export function labelHeaders(
  set: { headers: Record<string, unknown> },
  body: { as_of: string | null; stale: boolean; missing_sources: string[] },
): void {
  if (body.as_of) set.headers['x-data-as-of'] = body.as_of
  set.headers['x-data-stale'] = body.stale ? 'true' : 'false'
  if (body.missing_sources.length > 0) set.headers['x-data-missing-sources'] = body.missing_sources.join(', ')
}
