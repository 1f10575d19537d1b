/**
 * Seeded pseudo-random numbers for the statistics (bootstrap, Monte Carlo null).
 *
 * mulberry32 (Tommy Ettinger, 2017; public domain): a 32-bit state, one multiply-xorshift
 * round per draw, period 2^32. It is not cryptographic and its period is far beyond what a
 * request draws (10,000 simulations × a few thousand trades), and, unlike Math.random, the
 * same seed gives the same stream in every runtime, which is what "reproducible" needs.
 */

/** A generator of uniform numbers in [0, 1). */
export type Rng = () => number

const TWO_POW_32 = 4294967296

/** mulberry32 with its state exposed to a bulk fill, for the bootstrap's hot loop. */
export class Mulberry32 {
  private state: number

  /**
   * Seeds are taken modulo 2^32; non-integers are truncated first. The state is held as a
   * signed 32-bit integer (`| 0`, the same 32 bits as `>>> 0`): the JIT keeps it in an
   * integer register, where an unsigned value above 2^31 would be a double.
   */
  constructor(seed: number) {
    this.state = Math.trunc(seed) | 0
  }

  /** Uniform in [0, 1), a multiple of 2^-32. */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0
    let z = this.state
    z = Math.imul(z ^ (z >>> 15), z | 1)
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61)
    return ((z ^ (z >>> 14)) >>> 0) / TWO_POW_32
  }

  /**
   * Fills `out` with uniform integers in [0, n) (n ≤ 2^31): exactly ⌊next()·n⌋ for each
   * slot in order, with the generator inlined (about 5x faster than calling next()).
   */
  fillIndices(out: Int32Array, n: number): void {
    let state = this.state
    for (let i = 0; i < out.length; i++) {
      state = (state + 0x6d2b79f5) | 0
      let z = state
      z = Math.imul(z ^ (z >>> 15), z | 1)
      z ^= z + Math.imul(z ^ (z >>> 7), z | 61)
      out[i] = (((z ^ (z >>> 14)) >>> 0) / TWO_POW_32) * n
    }
    this.state = state
  }
}

/** A mulberry32 stream as a plain function. */
export function mulberry32(seed: number): Rng {
  const gen = new Mulberry32(seed)
  return () => gen.next()
}

/** Uniform integer in [0, n). The bias of scaling a 32-bit draw is below n / 2^32. */
export function randomInt(rng: Rng, n: number): number {
  return Math.floor(rng() * n)
}

/**
 * A 32-bit seed derived from a base seed and labels (FNV-1a over the text), so that
 * independent streams (per coin, per fold) stay fixed for a given request seed.
 */
export function deriveSeed(seed: number, ...labels: (string | number)[]): number {
  let h = 0x811c9dc5
  const text = `${Math.trunc(seed) >>> 0}|${labels.join('|')}`
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}
