/**
 * The mails themselves, in English and Korean, each as an HTML and a plain-text part.
 * Every interpolated value is escaped for where it lands (escapeMarkup in HTML text and
 * attributes; links are URLs we build, checked by safeUrlAttr).
 */
import { escapeMarkup as esc, safeUrlAttr as url } from '../cards/escape'
import type { Lang } from '../cards/labels'
import { LABELS } from '../cards/labels'
import { STATUS_DEFINITIONS, STATUSES, type StrategyStatus } from '../strategies/status'
import type { Direction } from '../engine/types'
import type { DigestRow, DigestSignals, WeeklyDigest } from './weekly-digest'

export interface MailContent {
  subject: string
  text: string
  html: string
}

const page = (lang: Lang, body: string) =>
  `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head><body style="font-family:Inter,'Noto Sans KR',Arial,sans-serif;color:#0f172a;max-width:720px;margin:0 auto;padding:16px">${body}</body></html>`

export function confirmationMail(lang: Lang, confirmUrl: string, ttlDays: number): MailContent {
  if (lang === 'ko')
    return {
      subject: 'perpsim 주간 알림 구독을 확인해 주세요',
      text: `perpsim 주간 전략 알림 구독 요청을 받았습니다.\n\n구독을 확인하려면 이 링크를 여세요 (${ttlDays}일 동안 유효):\n${confirmUrl}\n\n요청하지 않으셨다면 이 메일을 무시하세요. 확인하지 않으면 아무 메일도 보내지 않습니다.\n`,
      html: page(lang, `<p>perpsim 주간 전략 알림 구독 요청을 받았습니다.</p><p><a href="${url(confirmUrl)}">구독 확인</a> (${ttlDays}일 동안 유효)</p><p>요청하지 않으셨다면 이 메일을 무시하세요. 확인하지 않으면 아무 메일도 보내지 않습니다.</p>`),
    }
  return {
    subject: 'Confirm your perpsim weekly alert',
    text: `Someone (hopefully you) asked for perpsim's weekly strategy alert at this address.\n\nTo confirm, open this link (valid for ${ttlDays} days):\n${confirmUrl}\n\nIf it was not you, ignore this mail: nothing is sent unless the link is opened.\n`,
    html: page(lang, `<p>Someone (hopefully you) asked for perpsim's weekly strategy alert at this address.</p><p><a href="${url(confirmUrl)}">Confirm the subscription</a> (valid for ${ttlDays} days)</p><p>If it was not you, ignore this mail: nothing is sent unless the link is opened.</p>`),
  }
}

/** One-line meanings of the research statuses, as the mail prints them. */
const STATUS_LINES: Record<Lang, Record<StrategyStatus, string>> = {
  en: Object.fromEntries(STATUSES.map(s => [s, STATUS_DEFINITIONS[s].meaning])) as Record<StrategyStatus, string>,
  ko: {
    verified: '규칙과 기본 설정을 먼저 고정한 뒤 실제 캔들의 표본 외 구간에서 시험했고, 비용을 빼고도 수익을 냈습니다. 과거 결과이며 미래를 약속하지 않습니다.',
    testing: '표본 내에서 측정해 반박되지 않았지만, 검증됨의 표본 외 기준을 모두 충족하지는 못했습니다.',
    research: '연구 중인 아이디어: 어떤 성과 주장도 하지 않습니다.',
  },
}

const W: Record<Lang, {
  subject: (week: string) => string
  intro: (week: string, date: string | null, scope: string) => string
  noRanking: string
  weeklyBest: string
  top30d: string
  signals: string
  noSignals: string
  signalCols: [string, string, string, string]
  signalLine: (count: number, winRate: string, net: string) => string
  bars: (n: number) => string
  trades: (n: number) => string
  rankCols: string[]
  weeklyCols: string[]
  weeklyMeans: (days: number, meanPf: string, meanWinRate: string) => string
  notRankedToday: string
  statuses: string
  unsubscribe: string
}> = {
  en: {
    subject: week => `perpsim weekly: best configurations of ${week}`,
    intro: (week, date, scope) => `Week ${week}. Figures from the daily ranking of ${date} (${scope}), recomputed by perpsim with fees and funding. Backtests, not promises.`,
    noRanking: 'No ranking has been published yet, so this week has no ranked configurations.',
    weeklyBest: "This week's best configurations",
    top30d: 'Top 3 over the last 30 days',
    signals: 'Verified strategies: scored signals of the week',
    noSignals: 'Scored signals are not available on this service yet, so this mail has no signal section.',
    signalCols: ['Strategy', 'Signals', 'Win rate', 'Net'],
    signalLine: (n, wr, net) => (n === 0 ? 'no signal closed this week' : `${n} signal${n === 1 ? '' : 's'} closed, win rate ${wr}, net ${net}`),
    bars: n => `max ${n} bars`,
    trades: n => `${n} trades`,
    rankCols: ['#', 'Strategy', 'Win rate', 'PF', 'Return', 'Trades'],
    weeklyCols: ['#', 'Strategy', 'Days ranked (of 7)', 'Mean PF', 'Mean win rate', '7-day return', '7-day trades'],
    weeklyMeans: (d, pf, wr) => `ranked on ${d} of the last 7 days with mean PF ${pf} and mean win rate ${wr}`,
    notRankedToday: 'not ranked on the ranking day itself',
    statuses: 'What the statuses mean',
    unsubscribe: 'Unsubscribe with one click',
  },
  ko: {
    subject: week => `perpsim 주간 알림: ${week} 최고의 설정`,
    intro: (week, date, scope) => `${week} 주. ${date} 일일 랭킹(${scope})의 수치이며, perpsim이 수수료와 펀딩비를 반영해 다시 계산했습니다. 백테스트이며 약속이 아닙니다.`,
    noRanking: '아직 발표된 랭킹이 없어 이번 주에는 순위에 오른 설정이 없습니다.',
    weeklyBest: '이번 주 최고의 설정',
    top30d: '최근 30일 상위 3개',
    signals: '검증된 전략: 이번 주 채점된 시그널',
    noSignals: '이 서비스에서는 아직 채점된 시그널을 제공하지 않아, 이번 메일에는 시그널 섹션이 없습니다.',
    signalCols: ['전략', '시그널', '승률', '순수익'],
    signalLine: (n, wr, net) => (n === 0 ? '이번 주 종료된 시그널 없음' : `종료된 시그널 ${n}개, 승률 ${wr}, 순수익 ${net}`),
    bars: n => `최대 ${n}봉`,
    trades: n => `거래 ${n}회`,
    rankCols: ['#', '전략', '승률', 'PF', '수익률', '거래'],
    weeklyCols: ['#', '전략', '순위 진입일 (7일 중)', '평균 PF', '평균 승률', '7일 수익률', '7일 거래'],
    weeklyMeans: (d, pf, wr) => `최근 7일 중 ${d}일 순위 진입, 평균 PF ${pf}, 평균 승률 ${wr}`,
    notRankedToday: '랭킹 당일에는 순위에 없음',
    statuses: '상태의 의미',
    unsubscribe: '한 번의 클릭으로 구독 취소',
  },
}

/** the name, with its side added unless the name already says it (registry names end in LONG / SHORT) */
function nameWithSide(name: string, direction: Direction, lang: Lang): string {
  const side = LABELS[lang].direction[direction]
  return name.includes(side) || name.toUpperCase().endsWith(` ${direction.toUpperCase()}`) ? name : `${name} (${side})`
}

const pct = (x: number) => `${x > 0 ? '+' : ''}${x.toFixed(1)}%`

export interface WeeklyLinks {
  /** absolute /share URL of a row */
  share(row: DigestRow): string
  unsubscribe: string
}

const td = (x: string) => `<td style="padding:4px 8px">${x}</td>`

function rankTable(lang: Lang, title: string, rows: DigestRow[], links: WeeklyLinks): { text: string; html: string } {
  const w = W[lang], L = LABELS[lang]
  const settings = (r: DigestRow) => `${r.timeframe} · SL ${r.slPct}% · TP ${r.tpPct}% · ${w.bars(r.maxBars)}`
  const nameOf = (r: DigestRow) => nameWithSide(lang === 'ko' && r.nameKo ? r.nameKo : r.name, r.direction, lang)
  const figures = (r: DigestRow) => {
    const parts: string[] = []
    if (r.weekly) parts.push(w.weeklyMeans(r.weekly.daysRanked, r.weekly.meanProfitFactor.toFixed(2), `${r.weekly.meanWinRatePct.toFixed(1)}%`))
    if (r.figures) parts.push(`${L.winRate.toLowerCase()} ${r.figures.winRatePct.toFixed(1)}%, PF ${r.figures.profitFactor.toFixed(2)}, ${pct(r.figures.totalReturnPct)}, ${w.trades(r.figures.trades)}`)
    else parts.push(w.notRankedToday)
    if (r.figures?.ruinedOn) parts.push(L.ruinedOn(r.figures.ruinedOn))
    return parts.join('; ')
  }
  const text = [title, ...rows.map(r => `${r.rank}. ${nameOf(r)}, ${settings(r)}: ${figures(r)}\n   ${links.share(r)}`)].join('\n')
  const weekly = rows.some(r => r.weekly)
  const cols = weekly ? w.weeklyCols : w.rankCols
  const th = cols.map(c => `<th align="left" style="padding:4px 8px">${esc(c)}</th>`).join('')
  const dash = '–'
  const tr = rows
    .map(r => {
      const f = r.figures
      const cells = [
        String(r.rank),
        `<a href="${url(links.share(r))}">${esc(nameOf(r))}</a><br><span style="color:#64748b;font-size:12px">${esc(settings(r))}</span>` +
          (f?.ruinedOn ? `<br><span style="color:#dc2626;font-size:12px">${esc(L.ruinedOn(f.ruinedOn))}</span>` : ''),
        ...(weekly
          ? [r.weekly ? String(r.weekly.daysRanked) : dash, r.weekly ? r.weekly.meanProfitFactor.toFixed(2) : dash, r.weekly ? `${r.weekly.meanWinRatePct.toFixed(1)}%` : dash]
          : [f ? `${f.winRatePct.toFixed(1)}%` : dash, f ? f.profitFactor.toFixed(2) : dash]),
        f ? esc(pct(f.totalReturnPct)) : dash,
        f ? String(f.trades) : dash,
      ]
      return `<tr>${cells.map(td).join('')}</tr>`
    })
    .join('')
  return { text, html: `<h2 style="font-size:18px">${esc(title)}</h2><table cellspacing="0" style="border-collapse:collapse;font-size:14px"><tr>${th}</tr>${tr}</table>` }
}

function signalTable(lang: Lang, signals: DigestSignals[] | null): { text: string; html: string } {
  const w = W[lang], L = LABELS[lang]
  if (signals === null) return { text: `${w.signals}\n${w.noSignals}`, html: `<h2 style="font-size:18px">${esc(w.signals)}</h2><p>${esc(w.noSignals)}</p>` }
  const text = [w.signals, ...signals.map(s => `- ${nameWithSide(lang === 'ko' && s.nameKo ? s.nameKo : s.name, s.direction, lang)}: ${w.signalLine(s.count, `${s.winRatePct.toFixed(1)}%`, pct(s.netPct))}`)].join('\n')
  const th = w.signalCols.map(c => `<th align="left" style="padding:4px 8px">${esc(c)}</th>`).join('')
  const tr = signals.map(s => `<tr><td style="padding:4px 8px">${esc(nameWithSide(lang === 'ko' && s.nameKo ? s.nameKo : s.name, s.direction, lang))}</td><td style="padding:4px 8px">${s.count}</td><td style="padding:4px 8px">${s.count ? `${s.winRatePct.toFixed(1)}%` : '–'}</td><td style="padding:4px 8px">${s.count ? esc(pct(s.netPct)) : '–'}</td></tr>`).join('')
  return { text, html: `<h2 style="font-size:18px">${esc(w.signals)}</h2><table cellspacing="0" style="border-collapse:collapse;font-size:14px"><tr>${th}</tr>${tr}</table>` }
}

export function weeklyMail(d: WeeklyDigest, lang: Lang, links: WeeklyLinks): MailContent {
  const w = W[lang], L = LABELS[lang]
  const parts: { text: string; html: string }[] = []
  if (d.rankingDate === null) parts.push({ text: w.noRanking, html: `<p>${esc(w.noRanking)}</p>` })
  else {
    parts.push({ text: w.intro(d.week, d.rankingDate, d.rankingScope), html: `<p>${esc(w.intro(d.week, d.rankingDate, d.rankingScope))}</p>` })
    parts.push(rankTable(lang, w.weeklyBest, d.weeklyBest, links))
    parts.push(rankTable(lang, w.top30d, d.top30d, links))
  }
  parts.push(signalTable(lang, d.signals))
  const statuses = STATUSES.map(s => `${L.status[s]}: ${STATUS_LINES[lang][s]}`)
  parts.push({
    text: [w.statuses, ...statuses.map(s => `- ${s}`)].join('\n'),
    html: `<h2 style="font-size:18px">${esc(w.statuses)}</h2><ul>${statuses.map(s => `<li>${esc(s)}</li>`).join('')}</ul>`,
  })
  parts.push({ text: `${L.disclaimer}\n${w.unsubscribe}: ${links.unsubscribe}`, html: `<p style="color:#64748b;font-size:12px">${esc(L.disclaimer)}<br><a href="${url(links.unsubscribe)}">${esc(w.unsubscribe)}</a></p>` })
  return {
    subject: w.subject(d.week),
    text: parts.map(p => p.text).join('\n\n') + '\n',
    html: page(lang, `<h1 style="font-size:22px">${esc(w.subject(d.week))}</h1>${parts.map(p => p.html).join('')}`),
  }
}
