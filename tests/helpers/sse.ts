/**
 * A hand-made reader of the WHATWG Server-Sent Events framing (HTML Living Standard,
 * "Interpreting an event stream"), for tests that read a stream's body directly: lines end
 * at CRLF, LF or CR; a blank line dispatches the message; `:` starts a comment; a field's
 * value loses one leading space; `data` lines join with "\n"; `id` sticks (the last event
 * id) until a later `id` changes it.
 */
export interface SseEvent {
  /** the last event id in force when the message was dispatched ('' before any) */
  id: string
  event: string
  data: string
}

export interface SseRecord {
  events: SseEvent[]
  comments: string[]
  retry: number | null
}

export class SseReader {
  readonly record: SseRecord = { events: [], comments: [], retry: null }
  private buffer = ''
  private lastId = ''
  private data: string[] = []
  private event = ''
  private sawData = false
  private readonly decoder = new TextDecoder()

  feed(chunk: string | Uint8Array): void {
    this.buffer += typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true })
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer)
      // a lone CR at the end may be the first half of a CRLF: wait for the next chunk
      if (!m || (m[0] === '\r' && m.index === this.buffer.length - 1)) return
      const line = this.buffer.slice(0, m.index)
      this.buffer = this.buffer.slice(m.index + m[0].length)
      this.line(line)
    }
  }

  private line(line: string): void {
    if (line === '') {
      if (this.sawData) this.record.events.push({ id: this.lastId, event: this.event || 'message', data: this.data.join('\n') })
      this.data = []
      this.event = ''
      this.sawData = false
      return
    }
    if (line.startsWith(':')) {
      this.record.comments.push(line.slice(1).trim())
      return
    }
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    let value = colon < 0 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') {
      this.data.push(value)
      this.sawData = true
    } else if (field === 'event') this.event = value
    else if (field === 'id' && !value.includes('\0')) this.lastId = value
    else if (field === 'retry' && /^\d+$/.test(value)) this.record.retry = Number(value)
  }
}

/**
 * Read a stream until `done(record)` holds or `timeoutMs` passes (then it throws, naming what
 * was read); the reader is released, the body left open for more.
 */
export async function readUntil(body: ReadableStream, sse: SseReader, done: (r: SseRecord) => boolean, timeoutMs = 5000): Promise<SseRecord> {
  const reader = body.getReader()
  const deadline = Date.now() + timeoutMs
  try {
    while (!done(sse.record)) {
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`timed out; read so far: ${JSON.stringify(sse.record).slice(0, 2000)}`)
      let timer: ReturnType<typeof setTimeout> | undefined
      const next = await Promise.race([reader.read(), new Promise<'timeout'>(r => (timer = setTimeout(() => r('timeout'), left)))])
      clearTimeout(timer)
      if (next === 'timeout') continue
      if (next.done) {
        if (done(sse.record)) break
        throw new Error(`the stream ended; read: ${JSON.stringify(sse.record).slice(0, 2000)}`)
      }
      sse.feed(next.value)
    }
    return sse.record
  } finally {
    reader.releaseLock()
  }
}
