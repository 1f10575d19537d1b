/**
 * The short messages of the Telegram and Discord sinks, in English or Korean: what happened,
 * its figures, and a link to the record on the service (a scored result's Merkle proof, a
 * ranking row's /share page, a day root, a signal's scored record). Pure: the links it
 * cannot compute from the payload alone come in through `MessageLinks`.
 */
import type { Lang } from '../cards/labels'

export interface MessageLinks {
  /** the service's public origin, e.g. https://perpsim.example.org */
  baseUrl: string
  /** the /share query (without lang) and figures of a ranking day's first row, or null when the day file has none */
  rankingTop(date: string): RankingTop | null
  /** the day key (YYYYMMDD) a scored result's leaf is sealed under */
  proofDay(scored: ScoredPayload): string
}

export interface RankingTop {
  name: string
  nameKo: string | null
  direction: string
  winRatePct: number
  profitFactor: number
  totalReturnPct: number
  share: Record<string, string>
}

/** The payload fields the messages read (the events carry the records as the API serves them). */
export interface SignalPayload {
  id: number
  strategy: string
  strategy_name: string
  coin: string
  direction: string
  timeframe: string
  entry_price: number
  sl_pct: number
  tp_pct: number
  status: string
}
export interface ScoredPayload {
  scored: { id: number; strategy_name: string; coin: string; direction: string; status: string; pnl_pct: number; bars_held: number | null; exit_time: string | null; finalized_at: string | null }
  record_id: string
  leaf_hash: string
}
interface DayRootPayload {
  date: string
  leaf_count: number
  root: string | null
}
export interface RankingPayload {
  date: string
  sha256: string
  url: string
}

const fmt = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : String(x))
const signed = (x: number, d = 2) => (x > 0 ? '+' : '') + fmt(x, d)
/** an entry price as the exchange would print it: 6 significant digits, no exponent for small coins */
const price = (x: number) => (Number.isFinite(x) ? String(Number(x.toPrecision(6))) : String(x))

const SIDE = { en: { long: 'LONG', short: 'SHORT' }, ko: { long: '롱', short: '숏' } } as const
const side = (lang: Lang, d: string) => SIDE[lang][d === 'short' ? 'short' : 'long']

const OUTCOME = {
  en: { tp: 'take profit', sl: 'stop loss', trailing: 'trailing stop', signal: 'exit signal', timeout: 'time exit', liquidation: 'liquidated', end_of_data: 'end of data', cycle_end: 'cycle end', unscoreable: 'not scoreable', open: 'open' },
  ko: { tp: '익절', sl: '손절', trailing: '트레일링 스탑', signal: '청산 신호', timeout: '시간 청산', liquidation: '강제 청산', end_of_data: '데이터 끝', cycle_end: '사이클 종료', unscoreable: '채점 불가', open: '진행 중' },
} as const
const outcome = (lang: Lang, s: string) => (OUTCOME[lang] as Record<string, string>)[s] ?? s

const STATUS_KO: Record<string, string> = { verified: '검증됨', testing: '테스트 중', research: '연구용' }
const status = (lang: Lang, s: string) => (lang === 'ko' ? (STATUS_KO[s] ?? s) : s)

/** Day key YYYYMMDD from an ISO date or time. */
const dayKeyOf = (iso: string) => iso.slice(0, 10).replaceAll('-', '')
/** An ISO date YYYY-MM-DD from a day key or an ISO date. */
export const isoDate = (d: string) => (/^\d{8}$/.test(d) ? `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}` : d.slice(0, 10))

export function signalText(p: SignalPayload, lang: Lang, links: MessageLinks): string {
  const url = `${links.baseUrl}/signals/scored?signal_ids=${p.id}`
  if (lang === 'ko')
    return `🔔 ${p.strategy_name} · ${p.coin} ${side(lang, p.direction)} 진입 ${price(p.entry_price)} · 손절 ${fmt(p.sl_pct, 1)}% · 익절 ${fmt(p.tp_pct, 1)}% · ${p.timeframe} (${status(lang, p.status)})\n${url}`
  return `🔔 ${p.strategy_name} · ${side(lang, p.direction)} ${p.coin} at ${price(p.entry_price)} · SL ${fmt(p.sl_pct, 1)}% · TP ${fmt(p.tp_pct, 1)}% · ${p.timeframe} (${status(lang, p.status)})\n${url}`
}

export function scoredText(p: ScoredPayload, lang: Lang, links: MessageLinks): string {
  const s = p.scored
  const proof = `${links.baseUrl}/trust/merkle/${links.proofDay(p)}/proof?leaf=${p.leaf_hash}`
  const mark = s.pnl_pct > 0 ? '✅' : s.pnl_pct < 0 ? '❌' : '➖'
  const bars = s.bars_held === null ? '' : lang === 'ko' ? ` · ${s.bars_held}봉` : ` · ${s.bars_held} bars`
  if (lang === 'ko') return `${mark} ${s.strategy_name} · ${s.coin} ${side(lang, s.direction)}: ${outcome(lang, s.status)} ${signed(s.pnl_pct)}%${bars}\n증명: ${proof}`
  return `${mark} ${s.strategy_name} · ${side(lang, s.direction)} ${s.coin}: ${outcome(lang, s.status)} ${signed(s.pnl_pct)}%${bars}\nproof: ${proof}`
}

export function dayRootText(p: DayRootPayload, lang: Lang, links: MessageLinks): string {
  const url = `${links.baseUrl}/trust/merkle/${dayKeyOf(p.date)}`
  const root = p.root === null ? (lang === 'ko' ? '없음' : 'none') : `${p.root.slice(0, 16)}…`
  if (lang === 'ko') return `🌳 ${isoDate(p.date)}: 기록 ${p.leaf_count}건 봉인 · 루트 ${root}\n${url}`
  return `🌳 ${isoDate(p.date)}: ${p.leaf_count} record${p.leaf_count === 1 ? '' : 's'} sealed · root ${root}\n${url}`
}

export function rankingText(p: RankingPayload, lang: Lang, links: MessageLinks): string {
  const date = isoDate(p.date)
  const top = links.rankingTop(date)
  if (!top) {
    const url = `${links.baseUrl}${p.url}`
    return lang === 'ko' ? `🏆 ${date} 랭킹 발행 (sha256 ${p.sha256.slice(0, 12)}…)\n${url}` : `🏆 Rankings ${date} published (sha256 ${p.sha256.slice(0, 12)}…)\n${url}`
  }
  const share = `${links.baseUrl}/share?${new URLSearchParams({ ...top.share, lang })}`
  if (lang === 'ko')
    return `🏆 ${date} 랭킹 1위 ${top.nameKo ?? top.name} (${side(lang, top.direction)}) · PF ${fmt(top.profitFactor)} · 승률 ${fmt(top.winRatePct, 1)}% · 수익 ${signed(top.totalReturnPct, 1)}% (30일)\n${share}`
  return `🏆 Rankings ${date}: #1 ${top.name} (${side(lang, top.direction)}) · PF ${fmt(top.profitFactor)} · win ${fmt(top.winRatePct, 1)}% · return ${signed(top.totalReturnPct, 1)}% (30d)\n${share}`
}

/** A paper position opened or closed (the `paper` event: the /paper-trading position item). */
export interface PaperPayload {
  action: 'opened' | 'closed'
  position: { cycle_id: number; strategy: string; coin: string; direction: string; entry_price: number | null; margin_usd: number; leverage: number; sl_pct: number; tp_pct: number; exit_reason: string | null; pnl_pct: number | null; pnl_usd: number | null; bars_held: number | null }
}

export function paperText(p: PaperPayload, lang: Lang, links: MessageLinks): string {
  const x = p.position
  const url = `${links.baseUrl}/paper-trading?cycle=${x.cycle_id}`
  const entry = x.entry_price === null ? '' : lang === 'ko' ? ` ${price(x.entry_price)}` : ` at ${price(x.entry_price)}`
  if (p.action === 'opened') {
    if (lang === 'ko') return `📄 모의 거래 진입: ${x.coin} ${side(lang, x.direction)}${entry} · 증거금 $${fmt(x.margin_usd, 0)} ×${x.leverage} · 손절 ${fmt(x.sl_pct, 1)}% · 익절 ${fmt(x.tp_pct, 1)}% (${x.strategy})\n${url}`
    return `📄 Paper trade opened: ${side(lang, x.direction)} ${x.coin}${entry} · $${fmt(x.margin_usd, 0)} margin ×${x.leverage} · SL ${fmt(x.sl_pct, 1)}% · TP ${fmt(x.tp_pct, 1)}% (${x.strategy})\n${url}`
  }
  const pnl = x.pnl_pct === null ? '' : ` ${signed(x.pnl_pct)}%${x.pnl_usd === null ? '' : ` (${x.pnl_usd < 0 ? '-' : '+'}$${fmt(Math.abs(x.pnl_usd))})`}`
  const bars = x.bars_held === null ? '' : lang === 'ko' ? ` · ${x.bars_held}봉` : ` · ${x.bars_held} bars`
  const reason = x.exit_reason === null ? '' : ` ${outcome(lang, x.exit_reason)}`
  const mark = (x.pnl_pct ?? 0) > 0 ? '✅' : (x.pnl_pct ?? 0) < 0 ? '❌' : '📄'
  if (lang === 'ko') return `${mark} 모의 거래 종료: ${x.coin} ${side(lang, x.direction)}${reason}${pnl}${bars} (${x.strategy})\n${url}`
  return `${mark} Paper trade closed: ${side(lang, x.direction)} ${x.coin}${reason}${pnl}${bars} (${x.strategy})\n${url}`
}

export function pingText(lang: Lang, endpointId: number): string {
  return lang === 'ko' ? `perpsim 테스트 메시지 (ping): 알림 ${endpointId}번이 연결되었습니다.` : `perpsim test message (ping): notification endpoint ${endpointId} is connected.`
}

/** A kind this module has no wording for yet (a later issue's): its kind and id, and the stream that serves it. */
function otherText(kind: string, id: number, lang: Lang, links: MessageLinks): string {
  const url = `${links.baseUrl}/events?types=${encodeURIComponent(kind)}`
  return lang === 'ko' ? `perpsim ${kind} 이벤트 #${id}\n${url}` : `perpsim ${kind} event #${id}\n${url}`
}

/** The message of one event (its kind, id and parsed payload) in `lang`. */
export function eventText(e: { id: number; kind: string; payload: unknown }, lang: Lang, links: MessageLinks): string {
  switch (e.kind) {
    case 'signal':
      return signalText(e.payload as SignalPayload, lang, links)
    case 'scored':
      return scoredText(e.payload as ScoredPayload, lang, links)
    case 'day_root':
      return dayRootText(e.payload as DayRootPayload, lang, links)
    case 'ranking':
      return rankingText(e.payload as RankingPayload, lang, links)
    case 'paper':
      return paperText(e.payload as PaperPayload, lang, links)
    default:
      return otherText(e.kind, e.id, lang, links)
  }
}
