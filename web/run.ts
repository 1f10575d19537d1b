/** A run in flight: one at a time per view, cancellable, with its result or error. */
import { useRef, useState } from 'preact/hooks'

export interface RunState<T> {
  busy: boolean
  result: T | null
  error: unknown
  start: (work: (signal: AbortSignal) => Promise<T>) => Promise<void>
  cancel: () => void
}

export function useRun<T>(): RunState<T> {
  const [busy, setBusy] = useState(false)
  const [result, setResult] = useState<T | null>(null)
  const [error, setError] = useState<unknown>(null)
  const ctrl = useRef<AbortController | null>(null)
  const start = async (work: (signal: AbortSignal) => Promise<T>) => {
    ctrl.current?.abort()
    const c = new AbortController()
    ctrl.current = c
    setBusy(true)
    setError(null)
    try {
      const r = await work(c.signal)
      if (c.signal.aborted) return
      setResult(r)
    } catch (e) {
      if (c.signal.aborted) return
      setError(e)
    } finally {
      if (ctrl.current === c) {
        setBusy(false)
        ctrl.current = null
      }
    }
  }
  const cancel = () => {
    ctrl.current?.abort()
    ctrl.current = null
    setBusy(false)
  }
  return { busy, result, error, start, cancel }
}
