/** Every signal /signals/history lists over `hours` on a running server, page after page (limit 500, next_cursor). */
import { expect } from 'bun:test'

export async function allHistory(baseUrl: string, hours: number): Promise<any[]> {
  const get = async (cursor?: string) =>
    (await (await fetch(`${baseUrl}/signals/history?hours=${hours}&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).json()) as {
      signals: any[]
      next_cursor: string | null
      total: number
    }
  let page = await get()
  const signals = [...page.signals]
  while (page.next_cursor) {
    page = await get(page.next_cursor)
    signals.push(...page.signals)
  }
  expect(signals.length).toBe(page.total)
  return signals
}
