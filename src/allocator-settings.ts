/**
 * The memory allocator's settings every perpsim process runs with (docs/operations.md
 * "Memory allocator").
 *
 * Bun allocates through mimalloc, which gives freed pages back to the operating system a
 * short delay after they are freed and at every forced collection. A run's answer is a few
 * megabytes of typed arrays and strings made and dropped per request, so a serving process
 * faulted the same pages in again request after request: on this project's machine about
 * 40 % of a warm `/simulate`'s CPU was the kernel's (page faults, and the purges' TLB
 * shootdowns across the workers' threads; docs/benchmarks.md "Session 15"). With
 * `MIMALLOC_PURGE_DELAY=-1` freed pages stay with the process for its next allocations; its
 * resident size stays at its high-water mark instead of falling back between requests.
 *
 * mimalloc reads its options once, when the process starts, so they cannot be set from
 * JavaScript: a process started without them replaces itself (execve: the same pid, open
 * files and arguments) with one that has them. A value the environment already gives is
 * kept (an operator who wants memory back sets `MIMALLOC_PURGE_DELAY=100`, mimalloc's own
 * default). Linux only; elsewhere, or where the exec fails, the process goes on as started and
 * says so on stderr.
 */
import { dlopen, FFIType, ptr } from 'bun:ffi'
import { readFileSync } from 'node:fs'

export const ALLOCATOR_SETTINGS: Readonly<Record<string, string>> = { MIMALLOC_PURGE_DELAY: '-1' }

/** The `NAME=value` entries of ALLOCATOR_SETTINGS whose name an environment (its `NAME=value` entries) lacks. */
export function missingSettings(environ: readonly string[]): string[] {
  const named = new Set(environ.map(e => e.slice(0, e.indexOf('='))))
  return Object.entries(ALLOCATOR_SETTINGS)
    .filter(([name]) => !named.has(name))
    .map(([name, value]) => `${name}=${value}`)
}

/**
 * The argument vector that starts this same command again: for `bun [flags] src/cli.ts …`
 * the runtime, its flags and the script's arguments; for the single binary (`npm run
 * build`, whose entry lives under /$bunfs/) the binary and the command's arguments, its
 * own flags being built into it.
 */
export function restartArgv(p: { execPath: string; execArgv: readonly string[]; argv: readonly string[]; main: string }): string[] {
  if (p.main.startsWith('/$bunfs/')) return [p.execPath, ...p.argv.slice(2)]
  return [p.execPath, ...p.execArgv, ...p.argv.slice(1)]
}

/**
 * Make sure this process runs with ALLOCATOR_SETTINGS: returns at once when its environment
 * has them, otherwise replaces the process and does not return (unless the exec fails).
 */
export function ensureAllocatorSettings(): void {
  if (process.platform !== 'linux') return
  // the environment the process was started with, as bytes: process.env also holds what
  // Bun read from .env files, which the new process reads again itself
  let raw: Buffer
  try {
    raw = readFileSync('/proc/self/environ')
  } catch (e) {
    // (a /proc that hides it) process.env is the best left, .env files' values included
    const missing = missingSettings(Object.entries(process.env).map(([k, v]) => `${k}=${v}`))
    if (missing.length > 0) runningWithout(missing, e)
    return
  }
  const entries: Buffer[] = []
  for (let at = 0; at < raw.length; ) {
    const end = raw.indexOf(0, at)
    const stop = end < 0 ? raw.length : end
    if (stop > at) entries.push(raw.subarray(at, stop))
    at = stop + 1
  }
  const missing = missingSettings(entries.map(e => e.toString('latin1')))
  if (missing.length === 0) return
  const argv = restartArgv({ execPath: process.execPath, execArgv: process.execArgv, argv: process.argv, main: Bun.main })
  try {
    const libc = dlopen('libc.so.6', { execve: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 } })
    // every string's bytes stay referenced until execve has read them
    const kept: Uint8Array[] = []
    const cString = (bytes: Uint8Array) => {
      const b = new Uint8Array(bytes.length + 1)
      b.set(bytes)
      kept.push(b)
      return ptr(b)
    }
    const vector = (items: Uint8Array[]) => {
      const v = new BigUint64Array(items.length + 1) // NULL-terminated
      items.forEach((item, i) => (v[i] = BigInt(cString(item))))
      return v
    }
    const encode = (s: string) => new TextEncoder().encode(s)
    const argvV = vector(argv.map(encode))
    const envV = vector([...entries, ...missing.map(encode)])
    libc.symbols.execve(cString(encode(process.execPath)), ptr(argvV), ptr(envV))
    runningWithout(missing, new Error('execve failed'))
  } catch (e) {
    runningWithout(missing, e)
  }
}

/** The one line a process that goes on without its settings writes. */
function runningWithout(missing: string[], e: unknown): void {
  process.stderr.write(`perpsim: running without ${missing.join(' ')} (${String((e as Error)?.message ?? e).split('\n')[0]}); see docs/operations.md "Memory allocator"\n`)
}
