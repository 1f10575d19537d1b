/**
 * The page's code type-checks against the browser's types and the server's schemas
 * (web/tsconfig.json: the root tsconfig has no DOM types, so `tsc -p .` does not see it).
 */
import { expect, test } from 'bun:test'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..')

test('tsc --noEmit -p web reports nothing', () => {
  const p = Bun.spawnSync([join(ROOT, 'node_modules', '.bin', 'tsc'), '--noEmit', '-p', 'web'], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
  expect(p.stdout.toString() + p.stderr.toString()).toBe('')
  expect(p.exitCode).toBe(0)
}, 60_000)
