import { t } from 'elysia'

/** a practical address check: one @, no spaces or brackets, a dotted domain of letters, digits and hyphens */
export const EMAIL_PATTERN = "^[^\\s@<>()\\[\\],;:\"\\\\]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$"

const Email = t.String({ minLength: 3, maxLength: 254, pattern: EMAIL_PATTERN, description: 'an e-mail address' })

export const SubscribeRequest = t.Object({
  email: Email,
  lang: t.UnionEnum(['en', 'ko'], { default: 'en', description: 'language of the mails' }),
})

export const SubscribeAccepted = t.Object({
  status: t.Literal('pending_confirmation'),
  detail: t.String(),
})

/** the signed link of a mail */
export const SignedLinkQuery = t.Object({
  email: t.String({ minLength: 1, maxLength: 254 }),
  token: t.String({ minLength: 1, maxLength: 200 }),
})

export type SubscribeRequest = typeof SubscribeRequest.static
export type SignedLinkQuery = typeof SignedLinkQuery.static
