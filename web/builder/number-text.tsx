import { TypedTextInput } from './typed-text'

/** '' → undefined; a number → that number; anything else as typed (sent so the server names the problem) */
function parseNumber(text: string): number | string | undefined {
  const t = text.trim()
  if (t === '') return undefined
  const n = Number(t)
  return Number.isFinite(n) ? n : t
}

/**
 * A number typed as text: the text is kept as typed ("0." stays "0." while the value is 0)
 * and follows the value only when it changes from outside (a preset, the address).
 */
export function NumberText(props: { id: string; value: number | string | undefined; placeholder?: string; label?: string; onValue: (v: number | string | undefined) => void }) {
  return (
    <TypedTextInput
      id={props.id}
      value={props.value}
      format={v => (v === undefined ? '' : String(v))}
      parse={parseNumber}
      same={(t, v) => parseNumber(t) === v}
      onValue={props.onValue}
      placeholder={props.placeholder}
      label={props.label}
    />
  )
}
