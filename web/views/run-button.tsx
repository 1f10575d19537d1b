import { Progress } from '../ui'

/** The form's submit button, and while a run is in flight its progress line with Cancel. */
export function RunButton(props: { label: string; busy: boolean; cancel: () => void }) {
  return (
    <div class="run-bar">
      <button type="submit" class="primary" disabled={props.busy} id="run">
        {props.label}
      </button>
      {props.busy && <Progress onCancel={props.cancel} />}
    </div>
  )
}
