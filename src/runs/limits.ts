/**
 * Run sizes the cached paths allow, shared by the areas that run them (/simulate/compare,
 * /validate, /optimize): the indicator cache holds INDICATOR_CACHE_COINS coins per request.
 */

/** most coins /simulate/compare runs (null top_n means this too) */
export const COMPARE_MAX_TOP_N = 5
/** coins whose indicators the cached paths (compare, validate, optimize) compute per request */
export const INDICATOR_CACHE_COINS = 50
