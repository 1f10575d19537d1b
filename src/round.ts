/**
 * The one rounding of a figure to a number of decimals for display (half away from zero
 * on the scaled value, as Math.round does). Pure and import-free, below the engine.
 */
export const roundTo = (x: number, decimals: number): number => {
  const f = 10 ** decimals
  return Math.round(x * f) / f
}
