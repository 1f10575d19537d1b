/**
 * A 201 Created JSON answer (a resource was made; the body describes it): the route's one
 * success status, fixed, so the controller states no status itself.
 */
export const created = <T>(body: T): Response => Response.json(body, { status: 201 })
