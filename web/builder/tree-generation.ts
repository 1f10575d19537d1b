import { useRef } from 'preact/hooks'
import type { ConditionNode } from '../settings'

/**
 * Which tree the builder's boxes are for: a count that moves on when the entry is replaced
 * from outside the builder (a preset, the address) and stays when the builder's own rows or
 * JSON box change it. The boxes are keyed by it, so what a box holds for one tree (a number's
 * text, kept as typed while the box has the focus; the JSON box's text) is never shown for
 * the next one: a box reused by position would show the last tree's number under another
 * parameter's name.
 *
 * The builder's own entries are told apart by identity (`own` marks each one it makes), not
 * by comparing with the latest: an edit's entry that reaches the builder a render late is
 * still its own.
 */
export function useTreeGeneration(entry: ConditionNode): { generation: number; own: (e: ConditionNode) => ConditionNode } {
  const made = useRef(new WeakSet<object>())
  const shown = useRef(entry)
  const generation = useRef(0)
  if (entry !== shown.current) {
    if (!made.current.has(entry)) generation.current++
    shown.current = entry
  }
  return {
    generation: generation.current,
    own: e => {
      if (typeof e === 'object' && e !== null) made.current.add(e)
      return e
    },
  }
}
