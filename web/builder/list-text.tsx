import { useTypedText } from './typed-text'

/** A list of numbers typed as "2, 3, 22": the text kept as typed, the value the parsed list (a non-number sent as typed). */
export function ListText(props: { id: string; value: (number | string)[]; onValue: (v: (number | string)[]) => void }) {
  const parse = (t: string) => t.split(/[\s,]+/).filter(Boolean).map(x => (Number.isFinite(Number(x)) ? Number(x) : x))
  const typed = useTypedText(props.value, v => v.join(', '), (t, v) => JSON.stringify(parse(t)) === JSON.stringify(v))
  return (
    <input
      id={props.id}
      type="text"
      inputMode="decimal"
      placeholder="2, 3, 22"
      value={typed.text}
      onFocus={typed.onFocus}
      onBlur={typed.onBlur}
      onInput={e => {
        const v = (e.target as HTMLInputElement).value
        typed.setText(v)
        props.onValue(parse(v))
      }}
    />
  )
}
