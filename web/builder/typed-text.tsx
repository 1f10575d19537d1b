import { useEffect, useRef, useState } from 'preact/hooks'

/**
 * The text of an input that edits a parsed value. While the input has the focus the text
 * is kept as typed: the value coming back from the form can lag a keystroke behind under
 * load, and taking it then would drop what was typed since ("65.5" became "6"). It follows
 * the value when that changes from outside (a preset, the URL) or when the input is left.
 */
export function useTypedText<V>(value: V, format: (v: V) => string, same: (text: string, v: V) => boolean) {
  const [text, setText] = useState(format(value))
  const focused = useRef(false)
  useEffect(() => {
    if (!focused.current && !same(text, value)) setText(format(value))
  }, [value])
  return {
    text,
    setText,
    onFocus: () => {
      focused.current = true
    },
    onBlur: () => {
      focused.current = false
      if (!same(text, value)) setText(format(value))
    },
  }
}

/**
 * A text input for a parsed value (a number, a list of numbers, a symbol): the text kept as
 * useTypedText keeps it, the value its parse on every keystroke.
 */
export function TypedTextInput<V>(props: {
  id: string
  value: V
  format: (v: V) => string
  parse: (text: string) => V
  same: (text: string, v: V) => boolean
  onValue: (v: V) => void
  placeholder?: string
  label?: string
  /** the keyboard a phone shows: 'decimal' (numbers, the default) or 'text' (a symbol) */
  inputMode?: 'decimal' | 'text'
}) {
  const typed = useTypedText(props.value, props.format, props.same)
  return (
    <input
      id={props.id}
      type="text"
      inputMode={props.inputMode ?? 'decimal'}
      placeholder={props.placeholder}
      aria-label={props.label}
      value={typed.text}
      onFocus={typed.onFocus}
      onBlur={typed.onBlur}
      onInput={e => {
        const v = (e.target as HTMLInputElement).value
        typed.setText(v)
        props.onValue(props.parse(v))
      }}
    />
  )
}
