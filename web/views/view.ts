/** What the page shell (web/app.tsx) gives every view, and how a view runs when told to. */
import { useEffect } from 'preact/hooks'
import type { Meta } from '../meta'
import type { SetSettings, Settings } from '../settings'

export interface ViewProps {
  s: Settings
  set: SetSettings
  meta: Meta
  /** push the settings to the address bar and run */
  commit: () => void
  /** bumps when this view must run the settings it has (a commit, a loaded link, back/forward) */
  runSignal: number
  onPreset: (id: string) => void
}

/** run `go` each time the shell bumps the view's signal (not on the first render: signal 0) */
export function useRunOnSignal(signal: number, go: () => void) {
  useEffect(() => {
    if (signal > 0) go()
  }, [signal])
}
