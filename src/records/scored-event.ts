/**
 * The push feed's `scored` event (docs/events.md): a scored result the moment it becomes
 * final, as /signals/scored serves it, with the hash of the Merkle leaf it will be sealed as
 * (the same bytes, src/records/merkle-leaves.ts), so a receiver can check the leaf now and
 * its proof once the day is sealed.
 */
import type { NewEvent } from './events'
import { makeLeaf } from './merkle-leaves'
import { scoredItem } from './scored-item'
import type { ScoredJoined } from './signals'

export function scoredEvent(j: ScoredJoined): NewEvent {
  const item = scoredItem(j)
  const leaf = makeLeaf(`scored_signal:${j.signal.id}`, 0, { kind: 'scored_signal', ...item })
  return {
    kind: 'scored',
    payload: { scored: item, record_id: leaf.recordId, leaf_hash: leaf.leafHash },
    strategy: j.signal.strategy,
    coin: j.signal.coin,
    status: j.signal.status,
  }
}
