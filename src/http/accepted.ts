/**
 * A 202 Accepted JSON answer (the request is taken; what it asks for happens later, as a
 * mail): the route's one success status, fixed, so the controller states no status itself.
 */
export const accepted = <T>(body: T): Response => Response.json(body, { status: 202 })
