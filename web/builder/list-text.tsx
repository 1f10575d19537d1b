import { TypedTextInput } from './typed-text'

const parse = (t: string) => t.split(/[\s,]+/).filter(Boolean).map(x => (Number.isFinite(Number(x)) ? Number(x) : x))

/** A list of numbers typed as "2, 3, 22": the text kept as typed, the value the parsed list (a non-number sent as typed). */
export function ListText(props: { id: string; value: (number | string)[]; onValue: (v: (number | string)[]) => void }) {
  return (
    <TypedTextInput
      id={props.id}
      value={props.value}
      format={v => v.join(', ')}
      parse={parse}
      same={(t, v) => JSON.stringify(parse(t)) === JSON.stringify(v)}
      onValue={props.onValue}
      placeholder="2, 3, 22"
    />
  )
}
