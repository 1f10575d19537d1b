/**
 * A webhook receiver on 127.0.0.1 that keeps every request it gets (headers and the exact
 * body), answering with the statuses it is told to (`answerNext`), after an optional delay.
 */
export interface ReceivedHook {
  headers: Record<string, string>
  body: string
  path: string
}

export interface WebhookReceiver {
  url: string
  port: number
  received: ReceivedHook[]
  /** the next `times` requests get `status` (with these headers) instead of 200 */
  answerNext(status: number, times?: number, headers?: Record<string, string>): void
  /** forget the queued answers and what was received */
  reset(): void
  /** every answer waits this long first (a slow receiver) */
  delayMs: number
  close(): Promise<void>
}

export function startWebhookReceiver(port = 0): WebhookReceiver {
  const received: ReceivedHook[] = []
  const queue: { status: number; headers: Record<string, string> }[] = []
  const r: WebhookReceiver = {
    url: '',
    port: 0,
    received,
    delayMs: 0,
    answerNext(status, times = 1, headers = {}) {
      for (let i = 0; i < times; i++) queue.push({ status, headers })
    },
    reset() {
      queue.length = 0
      received.length = 0
    },
    close: async () => server.stop(true),
  }
  const server = Bun.serve({
    port,
    hostname: '127.0.0.1',
    async fetch(req) {
      const body = await req.text()
      if (r.delayMs) await Bun.sleep(r.delayMs)
      const headers: Record<string, string> = {}
      req.headers.forEach((v, k) => (headers[k] = v))
      received.push({ headers, body, path: new URL(req.url).pathname })
      const next = queue.shift()
      return new Response(next ? 'no' : 'ok', { status: next?.status ?? 200, headers: next?.headers })
    },
  })
  r.port = server.port!
  r.url = `http://127.0.0.1:${server.port}/hooks/perpsim`
  return r
}
