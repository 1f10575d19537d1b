/**
 * Seeded randomness for the synthetic market: a small fast PRNG (sfc32) and the few
 * distributions the generator needs. Every stream is derived from (seed, label), so a
 * coin's path does not depend on which other coins are generated, and a demo candle
 * depends only on (seed, symbol, hour).
 */

/** FNV-1a over the label's UTF-16 code units, mixed with the seed. */
export function hash32(seed: number, label: string): number {
  let h = (0x811c9dc5 ^ Math.imul(seed | 0, 0x9e3779b1)) >>> 0
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return mix32(h ^ (Math.floor(seed / 4294967296) | 0))
}

/** murmur3 finaliser: spreads every input bit over the output */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b)
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35)
  return (x ^ (x >>> 16)) >>> 0
}

const TWO_POW_32 = 4294967296

/** Small Fast Counting PRNG (Chris Doty-Humphrey's sfc32): 128-bit state, passes PractRand to 2^40+. */
export class Rng {
  private a = 0
  private b = 0
  private c = 0
  private d = 1
  private spareNormal = 0
  private hasSpare = false

  /** the stream named by (seed, label) */
  constructor(seed: number, label: string) {
    this.init(hash32(seed, label))
  }

  /**
   * The stream of (label, key) for integer keys such as an hour's open time, with the
   * label hashed once by the caller (labelHash = hash32(seed, label)): many short
   * streams stay cheap.
   */
  static keyed(labelHash: number, key: number): Rng {
    const r = new Rng(0, '')
    r.init(mix32(labelHash ^ mix32((key | 0) ^ mix32(Math.floor(key / 4294967296) + 0x9e3779b9))))
    return r
  }

  private init(h: number): void {
    this.a = mix32(h ^ 0x243f6a88)
    this.b = mix32(h ^ 0x85a308d3)
    this.c = mix32(h ^ 0x13198a2e)
    this.d = 1
    this.hasSpare = false
    for (let i = 0; i < 12; i++) this.nextU32()
  }

  nextU32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0
    this.d = (this.d + 1) | 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) | 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.c = (this.c + t) | 0
    return t >>> 0
  }

  /** uniform on the open interval (0, 1): never 0, so log() is always finite */
  uniform(): number {
    return (this.nextU32() + 0.5) / TWO_POW_32
  }

  /**
   * Advance the stream as normal() would, without the value: the draws are the same, so
   * what follows is too, as long as the next normal() of this stream is also skipped
   * (the kept second value is not computed).
   */
  skipNormal(): void {
    if (this.hasSpare) {
      this.hasSpare = false
      return
    }
    this.nextU32()
    this.nextU32()
    this.hasSpare = true
  }

  /** standard normal (Box–Muller, second value kept for the next call) */
  normal(): number {
    if (this.hasSpare) {
      this.hasSpare = false
      return this.spareNormal
    }
    const r = Math.sqrt(-2 * Math.log(this.uniform()))
    const th = 2 * Math.PI * this.uniform()
    this.spareNormal = r * Math.sin(th)
    this.hasSpare = true
    return r * Math.cos(th)
  }

  /**
   * Student-t with an even number of degrees of freedom ν = 2k, scaled to unit
   * variance: Z / √(χ²_ν / ν) · √((ν − 2)/ν), where χ²_2k = −2·ln(U₁⋯U_k).
   */
  studentT(nu: 4 | 6 | 8): number {
    let prod = this.uniform()
    for (let i = 2; i <= nu / 2; i++) prod *= this.uniform()
    const chi2 = -2 * Math.log(prod)
    return this.normal() * Math.sqrt((nu - 2) / chi2)
  }

  /** integer in [0, n) */
  int(n: number): number {
    return Math.floor(this.uniform() * n)
  }
}
