/**
 * GET /research/sweeps/{id}/events (and /research/walk-forward/{id}/events): a run followed as
 * Server-Sent Events (docs/api-research.md): the finished trials (`trial`, id = the trial's number in the ledger, so a client
 * resumes with Last-Event-ID), the progress (`progress`) and the state (`state`; the stream
 * ends once the sweep has stopped). A stream opened late replays the ledger first.
 */
import type { Db } from '../../db'
import { researchRun, trialsAfter } from '../../records/research-runs'
import { InvalidRequest, NotFound } from '../../runs/errors'
import { sseComment, sseMessage, sseRetry } from '../../sse-framing'
import type { ResearchRunner, RunEvent } from './runner'
import { trialOf } from './service'

const HEARTBEAT_MS = 15_000
const REPLAY_PAGE = 500

export async function sweepEvents(deps: { db: Db; runner: ResearchRunner; shutdown?: AbortSignal }, id: string, lastEventId: string | undefined, kind: 'sweep' | 'walk_forward' = 'sweep'): Promise<Response> {
  const row = await researchRun(deps.db, id)
  if (!row || row.kind !== kind) throw new NotFound(`no ${kind === 'sweep' ? 'sweep' : 'walk-forward run'} '${id}'`)
  let after = -1
  if (lastEventId !== undefined) {
    if (!/^\d{1,9}$/.test(lastEventId.trim())) throw new InvalidRequest([{ loc: ['header', 'last-event-id'], msg: 'a trial number this stream sent', input: lastEventId }])
    after = Number(lastEventId.trim())
  }
  const enc = new TextEncoder()
  let closed = false
  let unsubscribe: (() => void) | null = null
  let heartbeat: ReturnType<typeof setInterval> | undefined
  const stop = () => {
    closed = true
    unsubscribe?.()
    if (heartbeat) clearInterval(heartbeat)
  }
  const body = new ReadableStream<Uint8Array>({
    async start(ctl) {
      const send = (s: string) => {
        if (!closed) ctl.enqueue(enc.encode(s))
      }
      const close = () => {
        if (closed) return
        stop()
        ctl.close()
      }
      let lastSent = after
      let replaying = true
      const buffered: RunEvent[] = []
      const deliver = (e: RunEvent) => {
        if (e.type === 'trial') {
          if (e.trial <= lastSent) return
          lastSent = e.trial
          send(sseMessage({ id: e.trial, event: 'trial', data: JSON.stringify(e.item) }))
        } else if (e.type === 'progress') send(sseMessage({ event: 'progress', data: JSON.stringify({ done: e.done, total: e.total }) }))
        else {
          send(sseMessage({ event: 'state', data: JSON.stringify({ state: e.state, reason: e.reason }) }))
          if (e.state !== 'running') close()
        }
      }
      send(sseRetry(2000))
      unsubscribe = deps.runner.subscribe(id, e => (replaying ? buffered.push(e) : deliver(e)))
      for (;;) {
        const rows = await trialsAfter(deps.db, id, lastSent, REPLAY_PAGE)
        for (const r of rows) deliver({ type: 'trial', trial: r.trial, item: trialOf(r) })
        if (rows.length < REPLAY_PAGE || closed) break
      }
      const now = await researchRun(deps.db, id)
      if (now) deliver({ type: 'progress', done: now.finished, total: now.planned })
      replaying = false
      for (const e of buffered.splice(0)) deliver(e)
      if (unsubscribe === null && now) {
        // not in flight here: stopped already (or another process's run)
        deliver({ type: 'state', state: now.state === 'queued' ? 'running' : (now.state as 'running' | 'done' | 'cancelled' | 'failed'), reason: now.reason })
        if (now.state === 'queued' || now.state === 'running') close()
        return
      }
      heartbeat = setInterval(() => send(sseComment('keep-alive')), HEARTBEAT_MS)
      deps.shutdown?.addEventListener('abort', close)
    },
    cancel: stop,
  })
  return new Response(body, {
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' },
  })
}
