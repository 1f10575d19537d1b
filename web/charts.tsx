/**
 * Charts drawn with TradingView's lightweight-charts: line charts over UTC days (equity
 * against BTC/ETH hold, drawdown) and candles with overlays and trade markers. Every
 * series differs by line style as well as colour, and the legend says which is which.
 */
import {
  AreaSeries,
  CandlestickSeries,
  ColorType,
  createChart,
  createSeriesMarkers,
  LineSeries,
  LineStyle,
  type IChartApi,
  type SeriesMarker,
  type Time,
  type UTCTimestamp,
} from 'lightweight-charts'
import { useEffect, useRef } from 'preact/hooks'
import { upperBound } from '../src/sorted-search'

export const COLORS = { strategy: '#1d4ed8', btc: '#b45309', eth: '#6d28d9', drawdown: '#b91c1c', up: '#15803d', down: '#b91c1c', band: '#64748b', ema20: '#0e7490', ema50: '#a16207' }

export interface LineSpec {
  name: string
  color: string
  style: 'solid' | 'dashed' | 'dotted'
  data: { time: string | number; value: number }[]
}

const STYLE = { solid: LineStyle.Solid, dashed: LineStyle.Dashed, dotted: LineStyle.Dotted }

function baseChart(el: HTMLElement, height: number): IChartApi {
  return createChart(el, {
    autoSize: true,
    height,
    layout: { background: { type: ColorType.Solid, color: '#ffffff' }, textColor: '#1f2937', attributionLogo: false },
    grid: { vertLines: { color: '#eef2f7' }, horzLines: { color: '#eef2f7' } },
    rightPriceScale: { borderColor: '#cbd5e1' },
    timeScale: { borderColor: '#cbd5e1' },
  })
}

function Legend(props: { lines: { name: string; color: string; style: LineSpec['style'] }[] }) {
  return (
    <ul class="legend">
      {props.lines.map(l => (
        <li>
          <svg width="28" height="10" aria-hidden="true">
            <line x1="0" y1="5" x2="28" y2="5" stroke={l.color} stroke-width="3" stroke-dasharray={l.style === 'dashed' ? '7 4' : l.style === 'dotted' ? '2 3' : undefined} />
          </svg>
          {l.name}
        </li>
      ))}
    </ul>
  )
}

/** Lines over time; `area` draws the first series as a filled area (the drawdown). */
export function LineChart(props: { title: string; lines: LineSpec[]; height?: number; area?: boolean; id: string }) {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (!ref.current) return
    const chart = baseChart(ref.current, props.height ?? 300)
    for (const l of props.lines) {
      const data = l.data.map(p => ({ time: p.time as Time, value: p.value }))
      if (props.area) {
        const s = chart.addSeries(AreaSeries, { lineColor: l.color, topColor: `${l.color}10`, bottomColor: `${l.color}55`, lineWidth: 2, invertFilledArea: true, priceFormat: { type: 'price', precision: 2, minMove: 0.01 } })
        s.setData(data)
      } else {
        const s = chart.addSeries(LineSeries, { color: l.color, lineWidth: 2, lineStyle: STYLE[l.style], priceFormat: { type: 'price', precision: 2, minMove: 0.01 } })
        s.setData(data)
      }
    }
    chart.timeScale().fitContent()
    return () => chart.remove()
  }, [props.lines, props.area, props.height])
  return (
    <figure class="chart" id={props.id}>
      <figcaption>{props.title}</figcaption>
      <div ref={ref} class="chart-canvas" role="img" aria-label={props.title} />
      <Legend lines={props.lines} />
    </figure>
  )
}

export interface Candle {
  t: number
  o: number
  h: number
  l: number
  c: number
}

export interface Overlay {
  name: string
  color: string
  style: LineSpec['style']
  values: (number | null)[]
}

export interface TradeMark {
  entry: number
  exit: number
  long: boolean
  win: boolean
}

/** Candles (times in Unix seconds) with line overlays and entry/exit markers. */
export function CandleChart(props: { title: string; legend: string; candles: Candle[]; overlays: Overlay[]; marks: TradeMark[]; id: string }) {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (!ref.current) return
    const chart = baseChart(ref.current, 420)
    chart.applyOptions({ timeScale: { timeVisible: true, secondsVisible: false } })
    const candles = chart.addSeries(CandlestickSeries, { upColor: COLORS.up, downColor: COLORS.down, borderVisible: false, wickUpColor: COLORS.up, wickDownColor: COLORS.down })
    candles.setData(props.candles.map(b => ({ time: b.t as UTCTimestamp, open: b.o, high: b.h, low: b.l, close: b.c })))
    for (const o of props.overlays) {
      const s = chart.addSeries(LineSeries, { color: o.color, lineWidth: 1, lineStyle: STYLE[o.style], priceLineVisible: false, lastValueVisible: false, crosshairMarkerVisible: false })
      const pts: { time: UTCTimestamp; value: number }[] = []
      props.candles.forEach((b, i) => {
        const v = o.values[i]
        if (v !== null && v !== undefined) pts.push({ time: b.t as UTCTimestamp, value: v })
      })
      s.setData(pts)
    }
    // a marker must sit on a bar's time: snap each trade time to the bar that holds it
    const times = props.candles.map(b => b.t)
    const snap = (sec: number) => {
      if (sec < times[0] || sec > times[times.length - 1] + 7 * 86400) return null
      return times[upperBound(times, sec) - 1] as UTCTimestamp
    }
    const markers: SeriesMarker<Time>[] = []
    for (const m of props.marks) {
      const e = snap(m.entry)
      const x = snap(m.exit)
      if (e !== null) markers.push({ time: e, position: m.long ? 'belowBar' : 'aboveBar', shape: m.long ? 'arrowUp' : 'arrowDown', color: COLORS.strategy, text: m.long ? 'L' : 'S' })
      if (x !== null) markers.push({ time: x, position: m.long ? 'aboveBar' : 'belowBar', shape: m.win ? 'circle' : 'square', color: m.win ? COLORS.up : COLORS.down, text: m.win ? '+' : '−' })
    }
    markers.sort((a, b) => (a.time as number) - (b.time as number))
    createSeriesMarkers(candles, markers)
    chart.timeScale().fitContent()
    return () => chart.remove()
  }, [props.candles, props.overlays, props.marks])
  return (
    <figure class="chart" id={props.id}>
      <figcaption>{props.title}</figcaption>
      <div ref={ref} class="chart-canvas chart-tall" role="img" aria-label={props.title} />
      <p class="hint">{props.legend}</p>
    </figure>
  )
}

/** Horizontal bars with their values written out (compare). */
export function BarList(props: { title: string; items: { label: string; value: number; text: string }[]; id: string }) {
  const max = Math.max(1e-9, ...props.items.map(i => Math.abs(i.value)))
  return (
    <figure class="bars" id={props.id}>
      <figcaption>{props.title}</figcaption>
      <ul>
        {props.items.map(i => (
          <li>
            <span class="bar-label">{i.label}</span>
            <span class="bar-track">
              <span class={`bar ${i.value >= 0 ? 'bar-pos' : 'bar-neg'}`} style={{ width: `${(Math.abs(i.value) / max) * 100}%` }} />
            </span>
            <span class="bar-value">{i.text}</span>
          </li>
        ))}
      </ul>
    </figure>
  )
}
