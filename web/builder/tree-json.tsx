import type { ConditionNode } from '../settings'
import { described, useI18n } from '../ui'

/** what was typed into the JSON box, and why it is not a tree when it is not ('' when it parsed) */
export interface TypedJson {
  text: string | null
  error: string
}

/**
 * A tree the rows cannot show (nested groups, NOT, ANY_PRIOR, a value with `stat`, `mult` or
 * `offset`), edited as JSON. Every edit that parses sets the entry; one that does not says why.
 * The typed text is held by the builder, not by this box, so it is kept while the rows show
 * the tree and comes back with the box.
 */
export function TreeJson(props: { entry: ConditionNode; typed: TypedJson; onTyped: (t: TypedJson) => void; onEntry: (entry: ConditionNode) => void }) {
  const { t } = useI18n()
  const { text, error } = props.typed
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
          try {
            props.onEntry(JSON.parse(v) as ConditionNode)
            props.onTyped({ text: v, error: '' })
          } catch (err) {
            props.onTyped({ text: v, error: t('builder.jsonBad', { e: err instanceof Error ? err.message : String(err) }) })
          }
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
