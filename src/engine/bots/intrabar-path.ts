/**
 * The stated intrabar path of the bot simulators (docs/bots.md §1): a bar moves from its
 * open to the extreme nearer the open, then to the other extreme, then to its close; on
 * a tie (the open as far from the high as from the low) the high comes first. A candle
 * does not say which extreme came first; the nearer one first is the usual assumption
 * (the shorter way), and it is the one every trigger of the bots is ordered by.
 */

/** Whether the path visits the high before the low. */
export function highFirst(o: number, h: number, l: number): boolean {
  return h - o <= o - l
}

/**
 * The path of one bar as its four points: open, first extreme, second extreme, close,
 * written into `out` (reused; no allocation per bar).
 */
export function barPath(o: number, h: number, l: number, c: number, out: Float64Array): Float64Array {
  const hf = highFirst(o, h, l)
  out[0] = o
  out[1] = hf ? h : l
  out[2] = hf ? l : h
  out[3] = c
  return out
}
