/**
 * The database's own message for a refused statement, or null when it ran. drizzle wraps a
 * driver's error in DrizzleQueryError ("Failed query: …"), whose `cause` is the driver's
 * (a trigger's RAISE message, a constraint's name).
 */
export async function refusal(q: PromiseLike<unknown>): Promise<string | null> {
  try {
    await q
    return null
  } catch (e) {
    const cause = (e as { cause?: unknown }).cause
    return cause instanceof Error ? cause.message : e instanceof Error ? e.message : String(e)
  }
}
