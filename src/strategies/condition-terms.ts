/**
 * The words of the condition language: its operators, the window statistics a series may
 * take, and the size limits of a tree (docs/conditions.md). Plain values, so that the
 * compiler and the generated bot's bundle read them without the schema library.
 */

export const OPS = ['==', '!=', '>', '>=', '<', '<=', 'crosses_above', 'crosses_below', 'in', 'not_in'] as const
export type Op = (typeof OPS)[number]

/** Window statistics a series may take of a number field. */
export const STATS = ['mean', 'min', 'max'] as const
export type Stat = (typeof STATS)[number]

export const TREE_LIMITS = {
  /** levels from the root (a lone leaf is depth 1) */
  maxDepth: 8,
  /** leaves per tree (entry and exit are counted apart) */
  maxLeaves: 64,
  /** bars back a `shift` may read */
  maxShift: 50,
  /** bars in a window (`bars` of a stat or of ANY_PRIOR) */
  maxBars: 500,
  /** values in the list of `in` / `not_in` */
  maxListValues: 64,
  /** funding settlements a funding_rate_mean may average */
  maxEvents: 500,
  /** funding_rate_mean's settlements when `events` is not given (a day of 8-hour settlements) */
  defaultFundingEvents: 3,
} as const

/** A coin a series may name with `symbol` (the store's symbols: `<BASE>USDT`). */
export const SYMBOL_PATTERN = '^[A-Z0-9]{1,24}USDT$'
