/**
 * The page's link to the push feed (GET /events, docs/events.md): one EventSource per view
 * that wants live records. The browser's EventSource reconnects by itself after a drop,
 * sending the id of the last event it received as Last-Event-ID, so the view misses
 * nothing across a restart of the server; `state` drives the "live" indicator.
 */
import { useEffect, useRef, useState } from 'preact/hooks'

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'off'

/** Listen to `kinds` of the feed while mounted; `onEvent` gets each event's kind and parsed payload. */
export function useLiveEvents(kinds: readonly string[], onEvent: (kind: string, payload: unknown) => void, enabled = true): LiveState {
  const [state, setState] = useState<LiveState>(typeof EventSource === 'undefined' || !enabled ? 'off' : 'connecting')
  const handler = useRef(onEvent)
  handler.current = onEvent
  const key = kinds.join(',')
  useEffect(() => {
    if (typeof EventSource === 'undefined' || !enabled) {
      setState('off')
      return
    }
    const es = new EventSource(`/events?types=${encodeURIComponent(key)}`)
    es.onopen = () => setState('live')
    // the connection's own errors (no data): the browser retries unless it gave up (CLOSED)
    es.onerror = () => setState(es.readyState === EventSource.CLOSED ? 'off' : 'reconnecting')
    for (const kind of key.split(','))
      es.addEventListener(kind, e => {
        try {
          handler.current(kind, JSON.parse((e as MessageEvent<string>).data))
        } catch {
          // a payload this page cannot read is left out; the tables still show the stored records
        }
      })
    return () => es.close()
  }, [key, enabled])
  return state
}
