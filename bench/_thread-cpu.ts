/**
 * The calling thread's own CPU time (Linux `clock_gettime(CLOCK_THREAD_CPUTIME_ID)` through
 * bun:ffi), for bench/_thread-profile.ts: process.cpuUsage() sums every thread, and
 * /proc's per-thread counters tick at 10 ms, too coarse for a task of one or two.
 */
import { dlopen, FFIType, ptr } from 'bun:ffi'

const CLOCK_THREAD_CPUTIME_ID = 3
const libc = dlopen('libc.so.6', { clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 } })
const spec = new BigInt64Array(2)
const at = ptr(spec)

/** This thread's CPU time so far, in ms. */
export function threadCpuMs(): number {
  if (libc.symbols.clock_gettime(CLOCK_THREAD_CPUTIME_ID, at) !== 0) throw new Error('clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed')
  return Number(spec[0]) * 1000 + Number(spec[1]) / 1e6
}
