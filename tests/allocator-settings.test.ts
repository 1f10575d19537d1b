/**
 * Every perpsim process runs with the allocator settings of src/allocator-settings.ts: a
 * process started without them starts itself again with them (same command, same pid), and
 * a value the environment gives is kept.
 */
import { describe, expect, test } from 'bun:test'
import { ALLOCATOR_SETTINGS, missingSettings, restartArgv } from '../src/allocator-settings'
import { BUN, ROOT } from './helpers/serve'

describe('the settings an environment lacks', () => {
  test('a name the environment gives, whatever its value, is not asked again', () => {
    expect(ALLOCATOR_SETTINGS).toEqual({ MIMALLOC_PURGE_DELAY: '-1' })
    expect(missingSettings(['PATH=/usr/bin', 'HOME=/root'])).toEqual(['MIMALLOC_PURGE_DELAY=-1'])
    expect(missingSettings(['PATH=/usr/bin', 'MIMALLOC_PURGE_DELAY=100'])).toEqual([])
    expect(missingSettings(['MIMALLOC_PURGE_DELAY='])).toEqual([])
    // a longer name with the same start is another variable
    expect(missingSettings(['MIMALLOC_PURGE_DELAY_X=1', 'X_MIMALLOC_PURGE_DELAY=1'])).toEqual(['MIMALLOC_PURGE_DELAY=-1'])
  })
})

describe('the command started again', () => {
  test('from source: the runtime, its flags, the script and its arguments', () => {
    const argv = restartArgv({
      execPath: '/opt/bun',
      execArgv: ['--max-http-header-size=65536'],
      argv: ['/opt/bun', '/srv/perpsim/src/cli.ts', 'serve', '--x'],
      main: '/srv/perpsim/src/cli.ts',
    })
    expect(argv).toEqual(['/opt/bun', '--max-http-header-size=65536', '/srv/perpsim/src/cli.ts', 'serve', '--x'])
  })

  test('the single binary: the binary and the command, its flags being built in', () => {
    const argv = restartArgv({
      execPath: '/usr/local/bin/perpsim',
      execArgv: ['--max-http-header-size=65536'],
      argv: ['bun', '/$bunfs/root/perpsim', 'worker'],
      main: '/$bunfs/root/perpsim',
    })
    expect(argv).toEqual(['/usr/local/bin/perpsim', 'worker'])
  })
})

/** mimalloc's own report of its options at process start (MIMALLOC_VERBOSE=1), in order */
function purgeDelays(stderr: string): string[] {
  return [...stderr.matchAll(/option 'purge_delay': (-?\d+)/g)].map(m => m[1])
}

describe.if(process.platform === 'linux')('a real command line', () => {
  const run = (env: Record<string, string | undefined>) => {
    const clean: Record<string, string> = {}
    for (const [k, v] of Object.entries({ ...process.env, MIMALLOC_VERBOSE: '1', ...env })) if (v !== undefined) clean[k] = v
    return Bun.spawnSync([BUN, '--max-http-header-size=65536', 'src/cli.ts', 'help'], { cwd: ROOT, env: clean, stdout: 'pipe', stderr: 'pipe' })
  }

  test('started without the setting, the process starts again with it and then runs the command', () => {
    const p = run({ MIMALLOC_PURGE_DELAY: undefined })
    expect(p.exitCode).toBe(0)
    expect(p.stdout.toString()).toStartWith('usage: perpsim <command>')
    const delays = purgeDelays(p.stderr.toString())
    expect(delays[0]).toBe('100') // mimalloc's default, as first started
    expect(delays.at(-1)).toBe('-1')
    expect(p.stderr.toString()).not.toContain('running without')
  })

  test('a value the environment gives is kept: no second start', () => {
    const p = run({ MIMALLOC_PURGE_DELAY: '250' })
    expect(p.exitCode).toBe(0)
    expect(p.stdout.toString()).toStartWith('usage: perpsim <command>')
    const delays = purgeDelays(p.stderr.toString())
    expect(delays.length).toBeGreaterThan(0)
    expect(new Set(delays)).toEqual(new Set(['250']))
    // mimalloc reports each process's start once as "process init: 0x<upper-case hex>"
    // (a second report in lower case comes and goes): a restart makes it two
    const starts = (stderr: string) => stderr.match(/process init: 0x[0-9A-F]+$/gm)?.length ?? 0
    expect(starts(p.stderr.toString())).toBe(1)
    expect(starts(run({ MIMALLOC_PURGE_DELAY: undefined }).stderr.toString())).toBe(2)
  })
})
