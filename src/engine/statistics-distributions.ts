/**
 * Distribution functions the statistics need: the standard normal CDF and its inverse,
 * and Student's t CDF through the regularised incomplete beta function.
 * Each is accurate to about 1e-14 or better (tests/statistics-distributions.test.ts), so
 * the p-values and Sharpe ratio probabilities are limited by the data, not by these.
 */

const SQRT_2PI = 2.5066282746310002
const LOG_SQRT_PI = 0.5723649429247001
const GAMMA_EPS = 1e-17
const GAMMA_MAX_ITER = 1000

/** P(½, x) by its power series (Numerical Recipes §6.2, gser); converges fast for x < 1.5. */
function lowerGammaHalfSeries(x: number): number {
  let ap = 0.5
  let del = 1 / 0.5
  let sum = del
  for (let n = 0; n < GAMMA_MAX_ITER; n++) {
    ap += 1
    del *= x / ap
    sum += del
    if (Math.abs(del) < Math.abs(sum) * GAMMA_EPS) break
  }
  return sum * Math.exp(-x + 0.5 * Math.log(x) - LOG_SQRT_PI)
}

/** Q(½, x) by its continued fraction, modified Lentz (Numerical Recipes §6.2, gcf); x ≥ 1.5. */
function upperGammaHalfFraction(x: number): number {
  const tiny = 1e-300
  let b = x + 0.5
  let c = 1 / tiny
  let d = 1 / b
  let h = d
  for (let i = 1; i <= GAMMA_MAX_ITER; i++) {
    const an = -i * (i - 0.5)
    b += 2
    d = an * d + b
    if (Math.abs(d) < tiny) d = tiny
    c = b + an / c
    if (Math.abs(c) < tiny) c = tiny
    d = 1 / d
    const del = d * c
    h *= del
    if (Math.abs(del - 1) < GAMMA_EPS) break
  }
  return Math.exp(-x + 0.5 * Math.log(x) - LOG_SQRT_PI) * h
}

/**
 * Complementary error function for x ≥ 0 as the regularised upper incomplete gamma
 * function, erfc(x) = Q(½, x²), so the result keeps its relative accuracy far in the tail.
 */
function erfcNonNegative(x: number): number {
  const x2 = x * x
  return x2 < 1.5 ? 1 - lowerGammaHalfSeries(x2) : upperGammaHalfFraction(x2)
}

/**
 * Standard normal CDF Φ(x) = ½·erfc(−x/√2), with erfc from the incomplete gamma function
 * (series below 1.5, continued fraction above; Numerical Recipes §6.2). The lower tail keeps
 * its relative accuracy (better than 1e-12 down to Φ ≈ 1e-300, checked against mpmath), so
 * small p-values do not suffer the 1 − Φ cancellation.
 */
export function normalCdf(x: number): number {
  if (Number.isNaN(x)) return NaN
  if (x === 0) return 0.5
  // beyond 38.5 the tail is below the smallest double
  const half = Math.abs(x) > 38.5 ? 0 : 0.5 * erfcNonNegative(Math.abs(x) / Math.SQRT2)
  return x < 0 ? half : 1 - half
}

// Acklam's rational approximation (relative error 1.15e-9) ...
const A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239]
const B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1]
const C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783]
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416]
const P_LOW = 0.02425

function acklamLower(p: number): number {
  if (p < P_LOW) {
    const q = Math.sqrt(-2 * Math.log(p))
    return (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) /
      ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1)
  }
  const q = p - 0.5
  const r = q * q
  return ((((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q) /
    (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1)
}

/**
 * Inverse standard normal CDF Φ⁻¹(p) (P. J. Acklam, 2003), polished by one Halley step
 * against normalCdf, which brings it to full double precision. Upper-tail p are mapped
 * to the lower tail (−Φ⁻¹(1 − p); 1 − p is exact for p ≥ 0.5) so both tails keep their
 * relative accuracy. Φ⁻¹(0) = −∞, Φ⁻¹(1) = +∞, NaN outside [0, 1].
 */
export function normalInv(p: number): number {
  if (!(p >= 0 && p <= 1)) return NaN
  if (p === 0) return -Infinity
  if (p === 1) return Infinity
  if (p > 0.5) return -normalInv(1 - p)
  let x = acklamLower(p)
  const e = normalCdf(x) - p
  const u = e * SQRT_2PI * Math.exp(0.5 * x * x)
  x -= u / (1 + 0.5 * x * u)
  return x
}

// Lanczos approximation, g = 7, n = 9 (Godfrey's coefficients), |relative error| < 2e-15.
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
]

/** ln Γ(x) for x > 0. */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x)
  const y = x - 1
  let s = LANCZOS[0]
  for (let i = 1; i < 9; i++) s += LANCZOS[i] / (y + i)
  const t = y + 7.5
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(s)
}

const BETA_EPS = 1e-16
const BETA_TINY = 1e-300
const BETA_MAX_ITER = 20_000

/** Continued fraction of I_x(a, b), modified Lentz (Numerical Recipes §6.4, betacf). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const qab = a + b
  const qap = a + 1
  const qam = a - 1
  let c = 1
  let d = 1 - (qab * x) / qap
  if (Math.abs(d) < BETA_TINY) d = BETA_TINY
  d = 1 / d
  let h = d
  for (let m = 1; m <= BETA_MAX_ITER; m++) {
    const m2 = 2 * m
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2))
    d = 1 + aa * d
    if (Math.abs(d) < BETA_TINY) d = BETA_TINY
    c = 1 + aa / c
    if (Math.abs(c) < BETA_TINY) c = BETA_TINY
    d = 1 / d
    h *= d * c
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2))
    d = 1 + aa * d
    if (Math.abs(d) < BETA_TINY) d = BETA_TINY
    c = 1 + aa / c
    if (Math.abs(c) < BETA_TINY) c = BETA_TINY
    d = 1 / d
    const del = d * c
    h *= del
    if (Math.abs(del - 1) < BETA_EPS) return h
  }
  return h
}

/** Regularised incomplete beta function I_x(a, b), a, b > 0, 0 ≤ x ≤ 1. */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  return incompleteBeta(x, 1 - x, Math.log(x), Math.log1p(-x), a, b)
}

/**
 * ln Γ(a + b) − ln Γ(a) for a ≥ 20 from the Stirling series, with the leading terms
 * rearranged through log1p: taking the difference of two large ln Γ values would lose
 * about log10(a ln a) digits (1e-9 at a = 5e6, i.e. Student's t with 10⁷ trades).
 */
function logGammaIncrement(a: number, b: number): number {
  const stirlingTail = (z: number) => {
    const z2 = z * z
    return (1 / 12 - (1 / 360 - (1 / 1260 - 1 / (1680 * z2)) / z2) / z2) / z
  }
  return (a - 0.5) * Math.log1p(b / a) + b * Math.log(a + b) - b + stirlingTail(a + b) - stirlingTail(a)
}

/** ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a + b). */
export function logBeta(a: number, b: number): number {
  const big = Math.max(a, b)
  const small = Math.min(a, b)
  if (big < 20) return logGamma(a) + logGamma(b) - logGamma(a + b)
  return logGamma(small) - logGammaIncrement(big, small)
}

/**
 * I_x(a, b) given x, y = 1 − x and both logarithms, so that a caller who knows them
 * exactly (Student's t: ln x = −log1p(t²/ν)) loses no digits when a is large.
 */
function incompleteBeta(x: number, y: number, lnX: number, lnY: number, a: number, b: number): number {
  if (!(x >= 0 && x <= 1) || !(a > 0) || !(b > 0)) return NaN
  if (x === 0) return 0
  if (y === 0) return 1
  const front = Math.exp(a * lnX + b * lnY - logBeta(a, b))
  // the fraction converges fast only below the mean; use I_x(a,b) = 1 − I_y(b,a) above it
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(a, b, x)) / a
  return 1 - (front * betaContinuedFraction(b, a, y)) / b
}

/**
 * CDF of Student's t with ν degrees of freedom (ν > 0, not necessarily an integer):
 * P(T ≤ t) = 1 − ½·I_{ν/(ν+t²)}(ν/2, ½) for t ≥ 0, and ½·I_{ν/(ν+t²)}(ν/2, ½) for t < 0
 * (Abramowitz & Stegun 26.5.27 / 26.7.1).
 */
export function studentTCdf(t: number, df: number): number {
  if (Number.isNaN(t) || !(df > 0)) return NaN
  if (t === Infinity) return 1
  if (t === -Infinity) return 0
  const t2 = t * t
  const lnX = -Math.log1p(t2 / df)
  const lnY = Math.log(t2) - Math.log(df + t2)
  const tail = 0.5 * incompleteBeta(df / (df + t2), t2 / (df + t2), lnX, lnY, 0.5 * df, 0.5)
  return t >= 0 ? 1 - tail : tail
}

/** Upper tail P(T ≥ t), computed without the 1 − CDF cancellation for large t. */
export function studentTSurvival(t: number, df: number): number {
  return studentTCdf(-t, df)
}
