import { useState } from 'preact/hooks'
import type { ConditionNode } from '../settings'
import { described, useI18n } from '../ui'

/** what was typed into the JSON box (null: nothing yet, the tree is shown), and why it is not a tree when it is not ('' when it parsed) */
interface TypedJson {
  text: string | null
  error: string
}

/**
 * A tree the rows cannot show (nested groups, NOT, ANY_PRIOR, a value with `stat`, `mult` or
 * `offset`), edited as JSON. Every edit that parses to an object sets the entry; one that does
 * not (not JSON, or JSON that is not an object) says why.
 * The typed text is this box's own and is kept as typed (spaces, line breaks, a half-typed
 * tree) while the box shows the tree it was typed for; the builder keys the box by that tree
 * (tree-generation.ts), so a tree from a preset or the address is shown as itself. When the
 * typed tree is one the rows can show, the rows take over and the box goes, text and all: the
 * rows only ever make trees they can show, so the box comes back only with a tree from outside.
 */
export function TreeJson(props: { entry: ConditionNode; onEntry: (entry: ConditionNode) => void }) {
  const { t } = useI18n()
  const [typed, setTyped] = useState<TypedJson>({ text: null, error: '' })
  const { text, error } = typed
  return (
    <div class="field">
      <p class="hint">{t('builder.nested')}</p>
      <label for="b-json">{t('builder.json')}</label>
      <textarea
        rows={10}
        {...described('b-json', error ? { field: 'entry', msg: error, input: undefined } : null)}
        value={text ?? JSON.stringify(props.entry, null, 2)}
        onInput={e => {
          const v = (e.target as HTMLTextAreaElement).value
          let parsed: unknown
          try {
            parsed = JSON.parse(v)
          } catch (err) {
            return setTyped({ text: v, error: t('builder.jsonBad', { e: err instanceof Error ? err.message : String(err) }) })
          }
          // a tree is an object (a group or a condition); `1`, `null` or a list would be taken
          // for one by the rows' tests of the tree and break the builder
          const kind = parsed === null ? 'null' : Array.isArray(parsed) ? 'array' : typeof parsed
          if (kind !== 'object') return setTyped({ text: v, error: t('builder.jsonNotTree', { e: kind }) })
          props.onEntry(parsed as ConditionNode)
          setTyped({ text: v, error: '' })
        }}
      />
      {error && (
        <small class="error-text" id="b-json-err" role="alert">
          ⚠ {error}
        </small>
      )}
    </div>
  )
}
