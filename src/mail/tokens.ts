/**
 * Signed links in mails: HMAC-SHA256 over (purpose, address, issue day) with a secret the
 * service generates at first start and keeps in the database, compared in constant time.
 * A token reads `<issue day number>.<hex mac>`: confirmation links expire after
 * CONFIRM_TTL_DAYS, unsubscribe links after UNSUBSCRIBE_TTL_DAYS (long, because a mail
 * kept for months must still let its reader leave).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { Queryable } from '../db'
import { DAY_MS } from '../time'

export type TokenPurpose = 'confirm' | 'unsubscribe'

export const CONFIRM_TTL_DAYS = 7
export const UNSUBSCRIBE_TTL_DAYS = 400
const TTL_DAYS: Record<TokenPurpose, number> = { confirm: CONFIRM_TTL_DAYS, unsubscribe: UNSUBSCRIBE_TTL_DAYS }

const SECRET_NAME = 'mail_link_hmac_key'

/** The link key: created (32 random bytes) on first use, the same one ever after. */
export async function linkSecret(db: Queryable, nowMs: number): Promise<Buffer> {
  const t = db.t.serviceSecrets
  await db.orm.insert(t).values({ name: SECRET_NAME, value: randomBytes(32).toString('hex'), createdAtMs: nowMs }).onConflictDoNothing()
  const row = (await db.orm.select().from(t).where(eq(t.name, SECRET_NAME)))[0]!
  return Buffer.from(row.value, 'hex')
}

export class LinkTokens {
  constructor(private readonly secret: Buffer) {}

  private mac(purpose: TokenPurpose, email: string, day: number): Buffer {
    return createHmac('sha256', this.secret).update(`${purpose}\0${email}\0${day}`).digest()
  }

  sign(purpose: TokenPurpose, email: string, nowMs: number): string {
    const day = Math.floor(nowMs / DAY_MS)
    return `${day}.${this.mac(purpose, email, day).toString('hex')}`
  }

  /** true only for a token this service signed for this purpose and address, not yet expired */
  verify(purpose: TokenPurpose, email: string, token: string, nowMs: number): boolean {
    const m = /^(\d{1,7})\.([0-9a-f]{64})$/.exec(token)
    if (!m) return false
    const day = Number(m[1])
    const today = Math.floor(nowMs / DAY_MS)
    const expected = this.mac(purpose, email, day)
    const given = Buffer.from(m[2], 'hex')
    // the comparison runs whatever the age, so timing tells nothing about which check failed
    const macOk = timingSafeEqual(expected, given)
    return macOk && day <= today && today - day <= TTL_DAYS[purpose]
  }
}
