/**
 * Canonical JSON: the one serializer behind every JSON text that is hashed or compared
 * (docs/canonical-json.md). Object keys are sorted, there is no whitespace, strings and
 * numbers are written exactly as JSON.stringify writes them. Two policies differ only
 * where JSON has no value or where JavaScript's own key order shows through; each is the
 * form its texts have always been written in, so no stored hash or published byte moves.
 */

interface Policy {
  /** NaN and ±Infinity: refused, or written null as JSON.stringify writes them */
  nonFinite: 'throw' | 'null'
  /**
   * A function or a symbol anywhere, or undefined as an array element: refused, or left
   * out of an object and written null in an array as JSON.stringify does. An undefined
   * object property is left out under both (it is an absent key).
   */
  unwritable: 'throw' | 'null'
  /** whether an object's toJSON(key) is called first (a Date becomes its ISO text) or not (a Date has no own keys: {}) */
  toJSON: boolean
  /**
   * UTF-16 code units, or JavaScript's own-key order over the sorted keys: array-index
   * keys ("0" … "4294967294") first in numeric order, then the rest by code units. The
   * second is what JSON.stringify writes for an object rebuilt with sorted keys.
   */
  keyOrder: 'code-units' | 'indices-first'
}

const STRICT: Policy = { nonFinite: 'throw', unwritable: 'throw', toJSON: false, keyOrder: 'code-units' }
const LIKE_STRINGIFY: Policy = { nonFinite: 'null', unwritable: 'null', toJSON: true, keyOrder: 'indices-first' }

/**
 * The strict form, for texts that others re-derive (Merkle leaves, `trust verify`): a
 * record with no JSON text (NaN, ±Infinity, undefined in an array, a function, a BigInt)
 * throws rather than publishing something a verifier cannot reproduce from the served JSON.
 */
export function canonicalJson(value: unknown): string {
  return serialize(value, STRICT)
}

/**
 * JSON.stringify with object keys sorted at every depth: NaN and ±Infinity become null,
 * toJSON is honoured, array-index keys come first. Result hashes (stored in
 * result_requests), the published ranking day files and the worker cache keys have always
 * been this form, so it stays byte for byte.
 */
export function canonicalJsonLikeStringify(value: unknown): string {
  return serialize(value, LIKE_STRINGIFY)
}

function serialize(value: unknown, policy: Policy): string {
  const text = write(value, '', policy)
  if (text === undefined) throw new TypeError(`canonical JSON has no text for a lone ${typeof value}`)
  return text
}

/** The text of one value, or undefined for one that JSON leaves out (the caller decides). */
function write(value: unknown, key: string, p: Policy): string | undefined {
  if (p.toJSON && ((typeof value === 'object' && value !== null) || typeof value === 'bigint')) {
    const toJSON = (value as { toJSON?: unknown }).toJSON
    if (typeof toJSON === 'function') value = toJSON.call(value, key)
  }
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value)
    case 'boolean':
      return value ? 'true' : 'false'
    case 'number':
      if (Number.isFinite(value)) return JSON.stringify(value)
      if (p.nonFinite === 'throw') throw new TypeError('canonical JSON has no NaN or Infinity')
      return 'null'
    case 'bigint':
      throw new TypeError('canonical JSON has no BigInt')
    case 'object':
      if (value === null) return 'null'
      return Array.isArray(value) ? writeArray(value, p) : writeObject(value as Record<string, unknown>, p)
    default:
      return undefined
  }
}

function writeArray(a: unknown[], p: Policy): string {
  const parts: string[] = []
  for (let i = 0; i < a.length; i++) {
    const text = write(a[i], String(i), p)
    if (text === undefined && p.unwritable === 'throw') throw new TypeError(`canonical JSON has no ${typeof a[i]} at array index ${i}`)
    parts.push(text ?? 'null')
  }
  return `[${parts.join(',')}]`
}

function writeObject(o: Record<string, unknown>, p: Policy): string {
  const parts: string[] = []
  for (const k of sortedKeys(o, p.keyOrder)) {
    const v = o[k]
    if (v === undefined) continue
    const text = write(v, k, p)
    if (text === undefined) {
      if (p.unwritable === 'throw') throw new TypeError(`canonical JSON has no ${typeof v} at key ${JSON.stringify(k)}`)
      continue
    }
    parts.push(`${JSON.stringify(k)}:${text}`)
  }
  return `{${parts.join(',')}}`
}

const ARRAY_INDEX_MAX = 2 ** 32 - 2
const isArrayIndex = (k: string) => /^(?:0|[1-9]\d*)$/.test(k) && Number(k) <= ARRAY_INDEX_MAX

function sortedKeys(o: object, order: Policy['keyOrder']): string[] {
  // the default sort compares UTF-16 code units, and keys are unique, so it is total
  const keys = Object.keys(o).sort()
  if (order === 'code-units') return keys
  const indices = keys.filter(isArrayIndex)
  if (indices.length === 0) return keys
  return [...indices.sort((a, b) => Number(a) - Number(b)), ...keys.filter(k => !isArrayIndex(k))]
}
