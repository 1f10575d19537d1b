/** The page shell: header, view tabs, language, and the settings held in the address bar. */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { api } from './api'
import type { Meta } from './meta'
import { numberFormat, translator } from './i18n'
import { emptyBuilder, indicatorsFor } from './builder/tree'
import { fromQuery, toQuery, VIEWS, type Lang, type SetSettings, type Settings, type View } from './settings'
import { ErrorBox, I18nContext } from './ui'
import { RankingsView, SignalsView } from './rankings'
import { PaperView } from './paper'
import { TrustView } from './trust'
import { CoinView } from './views/coin'
import { CompareView } from './views/compare'
import { OptimizeView } from './views/optimize'
import { SimulateView } from './views/simulate'
import { ValidateView } from './views/validate'
import { SweepView } from './views/sweep'
import { WalkForwardView } from './views/walk-forward'
import type { ViewProps } from './views/view'

const VIEW_COMPONENTS: Record<View, (p: ViewProps) => preact.JSX.Element> = {
  simulate: SimulateView,
  coin: CoinView,
  compare: CompareView,
  validate: ValidateView,
  optimize: OptimizeView,
  sweep: SweepView,
  walkforward: WalkForwardView,
  rankings: RankingsView,
  signals: SignalsView,
  paper: PaperView,
  trust: TrustView,
}

/** a query with anything beyond the view and the language describes a run to reproduce */
function describesRun(search: string): boolean {
  return [...new URLSearchParams(search).keys()].some(k => k !== 'view' && k !== 'lang')
}

export function App() {
  const [meta, setMeta] = useState<Meta | null>(null)
  const [metaError, setMetaError] = useState<unknown>(null)
  const [s, setS] = useState<Settings>(() => fromQuery(location.search))
  // the settings as last set, for a Run pressed before the render of the last edit
  const latest = useRef(s)
  latest.current = s
  const [signals, setSignals] = useState<Record<View, number>>({ simulate: 0, coin: 0, compare: 0, validate: 0, optimize: 0, sweep: 0, walkforward: 0, rankings: 0, signals: 0, paper: 0, trust: 0 })
  const i18n = useMemo(() => ({ t: translator(s.lang), lang: s.lang, n: (v: number | null | undefined, d?: number) => numberFormat(s.lang, v, d) }), [s.lang])
  const { t } = i18n

  const runView = (v: View) => setSignals(x => ({ ...x, [v]: x[v] + 1 }))

  /** settings from the address, with a builder preset loaded when the link names one */
  const load = async (m: Meta, search: string) => {
    const next = fromQuery(
      search,
      m.strategies.map(x => x.id),
      m.presets.map(x => x.id),
    )
    if (next.mode === 'builder' && !next.builder) {
      next.builder = next.preset ? await presetSpec(next.preset, m) : emptyBuilder()
      const dir = new URLSearchParams(search).get('dir')
      if (dir === 'long' || dir === 'short') next.builder = { ...next.builder, dir }
      // exits the link leaves out are the preset's own
      const own = presetCache.get(next.preset)
      if (own) {
        if (next.sl === '') next.sl = String(own.sl_pct)
        if (next.tp === '') next.tp = String(own.tp_pct)
        if (next.bars === '') next.bars = String(own.max_bars)
      }
    }
    setS(next)
    if (describesRun(search)) runView(next.view)
  }

  useEffect(() => {
    Promise.all([api.strategies(), api.presets(), api.builderIndicators(), api.coins()])
      .then(async ([strategies, presets, indicators, coins]) => {
        const m: Meta = { strategies, presets, indicators, symbols: coins.map(c => c.symbol) }
        setMeta(m)
        await load(m, location.search)
      })
      .catch(setMetaError)
  }, [])

  useEffect(() => {
    if (!meta) return
    const onPop = () => void load(meta, location.search)
    addEventListener('popstate', onPop)
    return () => removeEventListener('popstate', onPop)
  }, [meta])

  useEffect(() => {
    document.documentElement.lang = s.lang
    document.title = t('title')
  }, [s.lang])

  const set: SetSettings = patch =>
    setS(x => {
      const p = typeof patch === 'function' ? patch(x) : patch
      const next = { ...x, ...p, builder: p.mode === 'builder' && !x.builder && !p.builder ? emptyBuilder() : (p.builder ?? x.builder) }
      latest.current = next
      return next
    })
  const commit = () => {
    const cur = latest.current
    const q = toQuery(cur, { run: true })
    if (`?${q}` !== location.search) history.pushState(null, '', `/?${q}`)
    runView(cur.view)
  }
  const go = (view: View) => {
    const next = { ...s, view }
    setS(next)
    const q = new URLSearchParams()
    if (view !== 'simulate') q.set('view', view)
    if (s.lang !== 'en') q.set('lang', s.lang)
    history.pushState(null, '', `/${q.size ? `?${q}` : ''}`)
  }
  const setLang = (lang: Lang) => {
    setS(x => ({ ...x, lang }))
    const q = new URLSearchParams(location.search)
    if (lang === 'en') q.delete('lang')
    else q.set('lang', lang)
    history.replaceState(null, '', `/${q.size ? `?${q}` : ''}`)
  }
  const onPreset = async (id: string) => {
    if (!meta || !id) return setS(x => ({ ...x, preset: id }))
    const spec = await presetSpec(id, meta)
    setS(x => ({ ...x, preset: id, builder: spec, sl: String(presetCache.get(id)?.sl_pct ?? x.sl), tp: String(presetCache.get(id)?.tp_pct ?? x.tp), bars: String(presetCache.get(id)?.max_bars ?? x.bars) }))
  }

  const Active = VIEW_COMPONENTS[s.view]
  return (
    <I18nContext.Provider value={i18n}>
      <a class="skip" href="#main">
        {t('skip')}
      </a>
      <header class="top">
        <div class="brand">
          <h1>{t('title')}</h1>
          <p class="tagline">{t('tagline')}</p>
        </div>
        <div class="lang">
          <label for="lang">{t('language')}</label>
          <select id="lang" value={s.lang} onChange={e => setLang((e.target as HTMLSelectElement).value === 'ko' ? 'ko' : 'en')}>
            <option value="en">English</option>
            <option value="ko">한국어</option>
          </select>
        </div>
      </header>
      <nav class="tabs" aria-label={t('nav')}>
        {VIEWS.map(v => (
          <a
            href={`/?view=${v}${s.lang !== 'en' ? `&lang=${s.lang}` : ''}`}
            aria-current={v === s.view ? 'page' : undefined}
            id={`tab-${v}`}
            onClick={e => {
              e.preventDefault()
              go(v)
            }}
          >
            {t(`view.${v}`)}
          </a>
        ))}
      </nav>
      <main id="main">
        {metaError ? <ErrorBox error={metaError} /> : !meta ? <p role="status">{t('loading.meta')}</p> : <Active key={s.view} s={s} set={set} meta={meta} commit={commit} runSignal={signals[s.view]} onPreset={onPreset} />}
      </main>
    </I18nContext.Provider>
  )
}

const presetCache = new Map<string, { sl_pct: number; tp_pct: number; max_bars: number }>()

async function presetSpec(id: string, m: Meta) {
  try {
    const p = await api.preset(id)
    presetCache.set(id, p)
    return { name: p.name, dir: p.direction === 'long' ? ('long' as const) : ('short' as const), indicators: indicatorsFor(p.entry, m.indicators, p.indicators), entry: p.entry }
  } catch {
    return emptyBuilder()
  }
}

