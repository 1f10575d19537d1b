/**
 * The admin credential of the internal routes (/trust/real-track, /real-mode-checklist):
 * header `X-Admin-Key` against ADMIN_KEY. No key configured: 503, the routes are off.
 * Missing header: 401. Wrong key: 403. The comparison runs over SHA-256 digests with
 * timingSafeEqual, so neither the key's content nor its length leaks through timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { Elysia } from 'elysia'

export const ADMIN_HEADER = 'x-admin-key'

export type AdminVerdict = { ok: true } | { ok: false; status: 401 | 403 | 503; detail: string }

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest()

export function checkAdminKey(configured: string, presented: string | null | undefined): AdminVerdict {
  if (configured === '') return { ok: false, status: 503, detail: 'admin routes are disabled: ADMIN_KEY is not configured on this server' }
  if (presented === null || presented === undefined || presented === '') return { ok: false, status: 401, detail: 'missing X-Admin-Key header' }
  if (!timingSafeEqual(digest(configured), digest(presented))) return { ok: false, status: 403, detail: 'X-Admin-Key does not match' }
  return { ok: true }
}

/**
 * An Elysia beforeHandle hook for admin routes: `{ beforeHandle: adminOnly(config.adminKey) }`.
 * Returns the refusal body (Elysia sends it) or nothing (the route runs).
 */
export function adminOnly(configured: string) {
  return ({ request, set }: { request: Request; set: { status?: number | string } }) => {
    const v = checkAdminKey(configured, request.headers.get(ADMIN_HEADER))
    if (v.ok) return
    set.status = v.status
    return { detail: v.detail }
  }
}

/**
 * The admin key checked before anything else reads the request (an `onRequest` hook for the
 * paths under `prefix`): a route with a body must answer 401/403/503 to a caller without
 * the key, never a 422 that tells the body's rules to anyone. Answers the refusal itself.
 */
export function adminPaths(configured: string, prefix: string) {
  return new Elysia({ name: 'admin-paths', seed: prefix }).onRequest(({ request }) => {
    const path = new URL(request.url).pathname
    if (path !== prefix && !path.startsWith(`${prefix}/`)) return
    if (request.method === 'OPTIONS') return // a CORS preflight carries no credentials
    const v = checkAdminKey(configured, request.headers.get(ADMIN_HEADER))
    if (!v.ok) return Response.json({ detail: v.detail }, { status: v.status })
  })
}
