import { t } from 'elysia'

export const NewsItem = t.Object({
  title: t.String(),
  source: t.String({ description: 'the outlet' }),
  url: t.String(),
  published: t.String({ description: 'ISO 8601' }),
  as_of: t.String({ description: 'when the feed carrying the item was fetched' }),
  stale: t.Boolean(),
})

export const NewsResponse = t.Array(NewsItem)
