/** The alternative.me Crypto Fear & Greed Index: GET {base}/fng/?limit=N. */
import { UpstreamError } from './errors'
import { httpGetJson } from './http'
import { list, num, parseBody, record, str } from './shape'

export const FEAR_GREED_SOURCE = 'alternative.me'

export interface FearGreedPoint {
  /** 0 (extreme fear) .. 100 (extreme greed) */
  value: number
  /** the publisher's own label, e.g. "Fear" */
  classification: string
  /** the day the value belongs to (ms) */
  timestampMs: number
}

export interface FearGreedClientOptions {
  baseUrl: string
  timeoutMs: number
}

export class FearGreedClient {
  constructor(private readonly opts: FearGreedClientOptions) {}

  /** The newest `limit` daily values, newest first. */
  async latest(limit = 1): Promise<FearGreedPoint[]> {
    const body = await httpGetJson(`${this.opts.baseUrl}/fng/?limit=${limit}`, { source: FEAR_GREED_SOURCE, timeoutMs: this.opts.timeoutMs })
    return parseBody(FEAR_GREED_SOURCE, body, parseFearGreed)
  }
}

export function parseFearGreed(body: unknown): FearGreedPoint[] {
  const o = record(body, '')
  // the API reports its own failures in metadata.error with HTTP 200
  const meta = o.metadata === undefined ? null : record(o.metadata, 'metadata')
  if (meta && meta.error !== null && meta.error !== undefined) throw new UpstreamError(FEAR_GREED_SOURCE, 'http_status', `metadata.error: ${String(meta.error)}`)
  const points = list(o.data, 'data').map((item, i) => {
    const d = record(item, `data[${i}]`)
    const value = num(d.value, `data[${i}].value`)
    if (value < 0 || value > 100) throw new UpstreamError(FEAR_GREED_SOURCE, 'malformed', `data[${i}].value ${value} is outside 0..100`)
    return {
      value,
      classification: str(d.value_classification, `data[${i}].value_classification`),
      timestampMs: num(d.timestamp, `data[${i}].timestamp`) * 1000,
    }
  })
  if (points.length === 0) throw new UpstreamError(FEAR_GREED_SOURCE, 'malformed', 'data is empty')
  return points.sort((a, b) => b.timestampMs - a.timestampMs)
}
