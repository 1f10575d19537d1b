/** What the end-to-end tests need to start the real server: the project root, its bun, a free port. */
import { join } from 'node:path'

export const ROOT = join(import.meta.dir, '..', '..')
export const BUN = join(ROOT, 'node_modules', '.bin', 'bun')

/** A port nobody listens on right now (the server is then started on it by PID). */
export async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') })
  const port = s.port!
  s.stop(true)
  return port
}
