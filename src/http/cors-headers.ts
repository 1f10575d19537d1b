/**
 * CORS: any origin may call the public API (no credentials), but a preflight is granted
 * only the request headers the API reads, never e.g. X-Admin-Key (admin routes are not for
 * browsers on other origins). Exposed: what a client needs to back off and to report.
 */
export const CORS_ALLOWED_HEADERS = ['content-type', 'cache-control', 'x-request-id']
export const CORS_EXPOSED_HEADERS = ['retry-after', 'x-request-id', 'content-disposition']
