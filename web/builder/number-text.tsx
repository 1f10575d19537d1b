import { useTypedText } from './typed-text'

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
  const typed = useTypedText(props.value, v => (v === undefined ? '' : String(v)), (t, v) => parseNumber(t) === v)
  return (
    <input
      id={props.id}
      type="text"
      inputMode="decimal"
      placeholder={props.placeholder}
      aria-label={props.label}
      value={typed.text}
      onFocus={typed.onFocus}
      onBlur={typed.onBlur}
      onInput={e => {
        const v = (e.target as HTMLInputElement).value
        typed.setText(v)
        props.onValue(parseNumber(v))
      }}
    />
  )
}
