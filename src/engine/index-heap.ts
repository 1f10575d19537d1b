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
    if (this.size === this.keys.length) throw new RangeError('IndexHeap: capacity exceeded')
    let i = this.size++
    while (i > 0) {
      const parent = (i - 1) >> 1
      const pk = this.keys[parent]
      if (pk < key || (pk === key && this.ties[parent] < tie)) break
      this.move(parent, i)
      i = parent
    }
    this.keys[i] = key
    this.ties[i] = tie
    this.vals[i] = value
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

  private siftDown(key: number, tie: number, value: number): void {
    const n = this.size
    let i = 0
    for (;;) {
      let c = 2 * i + 1
      if (c >= n) break
      if (c + 1 < n && this.less(c + 1, c)) c++
      const ck = this.keys[c]
      if (key < ck || (key === ck && tie < this.ties[c])) break
      this.move(c, i)
      i = c
    }
    this.keys[i] = key
    this.ties[i] = tie
    this.vals[i] = value
  }

  private less(a: number, b: number): boolean {
    const ka = this.keys[a]
    const kb = this.keys[b]
    return ka < kb || (ka === kb && this.ties[a] < this.ties[b])
  }

  private move(from: number, to: number): void {
    this.keys[to] = this.keys[from]
    this.ties[to] = this.ties[from]
    this.vals[to] = this.vals[from]
  }
}
