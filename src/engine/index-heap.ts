/**
 * A binary min-heap of integer payloads keyed by (key, tie), in preallocated typed
 * arrays: no allocation per push or pop. Equal keys pop in ascending `tie`, which keeps
 * every order the engine derives from it deterministic.
 */
export class IndexHeap {
  private readonly keys: Float64Array
  private readonly ties: Float64Array
  private readonly vals: Int32Array
  size = 0

  constructor(capacity: number) {
    const n = Math.max(1, capacity)
    this.keys = new Float64Array(n)
    this.ties = new Float64Array(n)
    this.vals = new Int32Array(n)
  }

  peekKey(): number {
    return this.keys[0]
  }

  peekValue(): number {
    return this.vals[0]
  }

  push(key: number, tie: number, value: number): void {
    const keys = this.keys
    const ties = this.ties
    const vals = this.vals
    if (this.size === keys.length) throw new RangeError('IndexHeap: capacity exceeded')
    let i = this.size++
    while (i > 0) {
      const parent = (i - 1) >> 1
      const pk = keys[parent]
      if (pk < key || (pk === key && ties[parent] < tie)) break
      keys[i] = pk
      ties[i] = ties[parent]
      vals[i] = vals[parent]
      i = parent
    }
    keys[i] = key
    ties[i] = tie
    vals[i] = value
  }

  /** Remove the minimum and return its value. */
  pop(): number {
    const top = this.vals[0]
    const n = --this.size
    if (n > 0) this.siftDown(this.keys[n], this.ties[n], this.vals[n])
    return top
  }

  /** pop() then push(key, tie, value), in one sift. */
  replaceTop(key: number, tie: number, value: number): number {
    const top = this.vals[0]
    this.siftDown(key, tie, value)
    return top
  }

  // locals and inlined comparisons: the engine's portfolio pushes and pops once per trade
  private siftDown(key: number, tie: number, value: number): void {
    const keys = this.keys
    const ties = this.ties
    const vals = this.vals
    const n = this.size
    let i = 0
    for (;;) {
      let c = 2 * i + 1
      if (c >= n) break
      const c2 = c + 1
      if (c2 < n && (keys[c2] < keys[c] || (keys[c2] === keys[c] && ties[c2] < ties[c]))) c = c2
      const ck = keys[c]
      if (key < ck || (key === ck && tie < ties[c])) break
      keys[i] = ck
      ties[i] = ties[c]
      vals[i] = vals[c]
      i = c
    }
    keys[i] = key
    ties[i] = tie
    vals[i] = value
  }
}
