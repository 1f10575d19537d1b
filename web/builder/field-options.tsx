import type { BuilderIndicator } from '../api'
import { BASE_FIELDS, MARKET_FIELDS } from './vocabulary'

/** The fields a condition can read, as a select's options: the candle's own, then each indicator's (GET /builder/indicators). */
export function FieldOptions(props: { catalog: readonly BuilderIndicator[] }) {
  return (
    <>
      <optgroup label="candle">
        {Object.keys(BASE_FIELDS).map(f => (
          <option value={f}>{f}</option>
        ))}
      </optgroup>
      <optgroup label="funding · basis · open interest">
        {Object.keys(MARKET_FIELDS).map(f => (
          <option value={f}>{f}</option>
        ))}
      </optgroup>
      {props.catalog.map(ind => (
        <optgroup label={ind.name}>
          {ind.fields.map(f => (
            <option value={f}>{f}</option>
          ))}
        </optgroup>
      ))}
    </>
  )
}
