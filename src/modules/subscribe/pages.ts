/** The small pages a confirmation or unsubscribe link answers with (nothing from the request is echoed). */
import { escapeMarkup as esc } from '../../cards/escape'
import type { Lang } from '../../cards/labels'
import type { LinkOutcome } from './service'

const TEXT: Record<Lang, Record<'confirm' | 'unsubscribe', Record<LinkOutcome, string>>> = {
  en: {
    confirm: {
      done: 'Subscription confirmed: the weekly alert goes out on Mondays at 01:00 UTC. Every mail has a one-click unsubscribe link.',
      already: 'This subscription is already confirmed.',
      forbidden: 'This confirmation link is not valid (or has expired). Subscribe again to get a new one.',
    },
    unsubscribe: {
      done: 'You are unsubscribed: no more weekly alerts will be sent to this address.',
      already: 'This address is not subscribed (any more).',
      forbidden: 'This unsubscribe link is not valid. Use the link from your most recent mail.',
    },
  },
  ko: {
    confirm: {
      done: '구독이 확인되었습니다. 주간 알림은 매주 월요일 01:00 UTC에 발송되며, 모든 메일에 한 번의 클릭으로 구독을 취소하는 링크가 있습니다.',
      already: '이미 확인된 구독입니다.',
      forbidden: '이 확인 링크는 유효하지 않거나 만료되었습니다. 다시 구독해 새 링크를 받으세요.',
    },
    unsubscribe: {
      done: '구독이 취소되었습니다. 이 주소로 더 이상 주간 알림을 보내지 않습니다.',
      already: '이 주소는 구독 중이 아닙니다.',
      forbidden: '이 구독 취소 링크는 유효하지 않습니다. 가장 최근 메일의 링크를 사용하세요.',
    },
  },
}

export function linkAnswerPage(kind: 'confirm' | 'unsubscribe', outcome: LinkOutcome, lang: Lang): string {
  const msg = TEXT[lang][kind][outcome]
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="robots" content="noindex, nofollow"><title>perpsim</title></head><body><p>${esc(msg)}</p></body></html>\n`
}

export function linkAnswerText(kind: 'confirm' | 'unsubscribe', outcome: LinkOutcome): string {
  return `${TEXT.en[kind][outcome]}\n`
}
