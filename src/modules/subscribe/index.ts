import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { accepted } from '../../http/accepted'
import type { Mailer } from '../../mail/mailer'
import { SignedLinkQuery, SubscribeAccepted, SubscribeRequest } from './model'
import { linkAnswerPage, linkAnswerText } from './pages'
import { SubscriptionService, type LinkOutcome } from './service'

const HTML = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-robots-tag': 'noindex' }
const statusOf = (o: LinkOutcome) => (o === 'forbidden' ? 403 : 200)

/** POST /api/subscribe, GET /api/subscribe/confirm, GET and POST (RFC 8058 one-click) /api/unsubscribe. */
export function subscribeModule(deps: AppDeps, mailer: Mailer) {
  const subs = new SubscriptionService({ db: deps.db, clock: deps.clock, mailer })
  return new Elysia({ name: 'subscribe' })
    .post(
      '/api/subscribe',
      async ({ body }) => {
        await subs.subscribe(body.email, body.lang)
        return accepted({
          status: 'pending_confirmation' as const,
          detail: 'If this address can receive mail, a confirmation link is on its way; the weekly alert starts once it is followed.',
        })
      },
      { body: SubscribeRequest, response: { 202: SubscribeAccepted }, detail: { tags: ['subscription'], summary: 'Subscribe an address to the weekly alert (double opt-in)' } },
    )
    .get(
      '/api/subscribe/confirm',
      async ({ query }) => {
        const outcome = await subs.confirm(query.email, query.token)
        return new Response(linkAnswerPage('confirm', outcome, await subs.langOf(query.email)), { status: statusOf(outcome), headers: HTML })
      },
      { query: SignedLinkQuery, detail: { tags: ['subscription'], summary: 'Confirm a subscription (signed link from the confirmation mail)' } },
    )
    .get(
      '/api/unsubscribe',
      async ({ query }) => {
        const outcome = await subs.unsubscribe(query.email, query.token)
        return new Response(linkAnswerPage('unsubscribe', outcome, await subs.langOf(query.email)), { status: statusOf(outcome), headers: HTML })
      },
      { query: SignedLinkQuery, detail: { tags: ['subscription'], summary: 'Unsubscribe (signed link from a mail)' } },
    )
    .post(
      '/api/unsubscribe',
      async ({ query }) => {
        const outcome = await subs.unsubscribe(query.email, query.token)
        return new Response(linkAnswerText('unsubscribe', outcome), { status: statusOf(outcome), headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } })
      },
      {
        query: SignedLinkQuery,
        parse: ({ request }) => request.text(), // the one-click body (List-Unsubscribe=One-Click) carries nothing we need
        detail: { tags: ['subscription'], summary: 'One-click unsubscribe (RFC 8058 List-Unsubscribe-Post)' },
      },
    )
}
