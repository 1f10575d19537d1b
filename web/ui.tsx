/** Small building blocks shared by the views: labelled fields, errors, progress, tables. */
import { createContext, type ComponentChildren } from 'preact'
import { useContext, useEffect, useState } from 'preact/hooks'
import { ApiError, type FieldProblem } from './api'
import { numberFormat, translator, type T } from './i18n'
import type { Lang } from './settings'

export interface I18n {
  t: T
  lang: Lang
  n: (v: number | null | undefined, digits?: number) => string
}

export const I18nContext = createContext<I18n>({ t: translator('en'), lang: 'en', n: (v, d) => numberFormat('en', v, d) })
export const useI18n = () => useContext(I18nContext)

export function Field(props: { id: string; label: string; error?: FieldProblem | null; hint?: string; children: ComponentChildren }) {
  const { t } = useI18n()
  return (
    <div class={`field${props.error ? ' field-error' : ''}`}>
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint && (
        <small id={`${props.id}-hint`} class="hint">
          {props.hint}
        </small>
      )}
      {props.error && (
        <small id={`${props.id}-err`} class="error-text" role="alert">
          ⚠ {props.error.msg}
          {props.error.input !== undefined && <> ({t('err.sent', { v: JSON.stringify(props.error.input) })})</>}
        </small>
      )}
    </div>
  )
}

/** aria attributes tying an input to its hint and error */
export function described(id: string, error?: FieldProblem | null, hint?: string) {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-err` : ''].filter(Boolean).join(' ')
  return { id, name: id, 'aria-invalid': error ? true : undefined, 'aria-describedby': ids || undefined }
}

/** A whole-request error: 422 problems no field shows, 429/503 with when to retry, anything else. */
export function ErrorBox(props: { error: unknown; shownFields?: readonly string[] }) {
  const { t } = useI18n()
  const e = props.error
  if (!e) return null
  let lines: string[]
  if (e instanceof ApiError) {
    if (e.status === 422) {
      const rest = e.problems.filter(p => !props.shownFields?.includes(p.field))
      lines = [t('err.422'), ...rest.map(p => t('err.422.other', { f: p.field, m: `${p.msg} (${t('err.sent', { v: JSON.stringify(p.input) })})` }))]
    } else if (e.status === 429) lines = [t('err.429', { s: e.retryAfterSeconds ?? 60 })]
    else if (e.status === 503) lines = [t('err.503', { s: e.retryAfterSeconds ?? 5 })]
    else if (e.status === 0) lines = [t('err.network', { m: e.message })]
    else lines = [t('err.other', { status: e.status, m: e.message })]
  } else lines = [String(e instanceof Error ? e.message : e)]
  return (
    <div class="error-box" role="alert">
      {lines.map(l => (
        <p>⚠ {l}</p>
      ))}
    </div>
  )
}

export function Progress(props: { onCancel?: () => void }) {
  const { t } = useI18n()
  const [started] = useState(() => performance.now())
  const [now, setNow] = useState(started)
  useEffect(() => {
    const id = setInterval(() => setNow(performance.now()), 100)
    return () => clearInterval(id)
  }, [])
  return (
    <div class="progress" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      <span>{t('running', { s: ((now - started) / 1000).toFixed(1) })}</span>
      {props.onCancel && (
        <button type="button" class="secondary" onClick={props.onCancel}>
          {t('cancel')}
        </button>
      )}
    </div>
  )
}

export function Verdict(props: { verdict: 'pass' | 'fail' | 'not_evaluated' }) {
  const { t } = useI18n()
  const icon = props.verdict === 'pass' ? '✓' : props.verdict === 'fail' ? '✗' : '–'
  return (
    <span class={`badge badge-${props.verdict}`}>
      <span aria-hidden="true">{icon} </span>
      {t(`rel.${props.verdict}`)}
    </span>
  )
}

/** one figure of a `<dl class="metrics">` */
export function Metric(props: { label: string; children: ComponentChildren; id?: string }) {
  return (
    <div class="metric" id={props.id}>
      <dt>{props.label}</dt>
      <dd>{props.children}</dd>
    </div>
  )
}

/** a signed percent with its sign spelled out, so colour is never the only cue */
export function Pct(props: { v: number | null | undefined; digits?: number; signed?: boolean }) {
  const { n } = useI18n()
  if (props.v === null || props.v === undefined || !Number.isFinite(props.v)) return <span>—</span>
  // -0 (a zero drawdown negated) prints as 0
  const v = props.v === 0 ? 0 : props.v
  const cls = props.signed === false ? '' : v > 0 ? 'pos' : v < 0 ? 'neg' : ''
  return <span class={cls}>{`${props.signed !== false && v > 0 ? '+' : ''}${n(v, props.digits ?? 2)} %`}</span>
}

export interface Column<R> {
  key: string
  label: string
  value: (r: R) => number | string
  render?: (r: R) => ComponentChildren
  numeric?: boolean
}

/** A sortable, paged table; headers are buttons (keyboard) with aria-sort. */
export function DataTable<R>(props: { columns: Column<R>[]; rows: readonly R[]; pageSize?: number; caption: string; note?: string; id: string; initialSort?: { key: string; desc: boolean } }) {
  const { t } = useI18n()
  const [sort, setSort] = useState<{ key: string; desc: boolean } | null>(props.initialSort ?? null)
  const [page, setPage] = useState(0)
  const size = props.pageSize ?? props.rows.length
  let rows = props.rows
  if (sort) {
    const col = props.columns.find(c => c.key === sort.key)
    if (col) {
      rows = [...rows].sort((a, b) => {
        const x = col.value(a)
        const y = col.value(b)
        const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y))
        return sort.desc ? -c : c
      })
    }
  }
  const pages = Math.max(1, Math.ceil(rows.length / Math.max(1, size)))
  const p = Math.min(page, pages - 1)
  const shown = rows.slice(p * size, p * size + size)
  return (
    <div class="table-wrap">
      <table id={props.id}>
        <caption>
          {props.caption}
          {props.note && <small class="caption-note">{props.note}</small>}
        </caption>
        <thead>
          <tr>
            {props.columns.map(c => {
              const active = sort?.key === c.key
              return (
                <th scope="col" class={c.numeric ? 'num' : ''} aria-sort={active ? (sort!.desc ? 'descending' : 'ascending') : 'none'}>
                  <button
                    type="button"
                    class="sort"
                    title={t('sort.by', { c: c.label })}
                    onClick={() => {
                      setSort(active ? { key: c.key, desc: !sort!.desc } : { key: c.key, desc: !!c.numeric })
                      setPage(0)
                    }}
                  >
                    {c.label}
                    <span aria-hidden="true">{active ? (sort!.desc ? ' ▼' : ' ▲') : ''}</span>
                  </button>
                </th>
              )
            })}
          </tr>
        </thead>
        <tbody>
          {shown.map(r => (
            <tr>
              {props.columns.map(c => (
                <td class={c.numeric ? 'num' : ''}>{c.render ? c.render(r) : c.value(r)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {pages > 1 && (
        <nav class="pager" aria-label={props.caption}>
          <button type="button" disabled={p === 0} onClick={() => setPage(p - 1)} aria-label={t('page.prev')}>
            ‹
          </button>
          <span>{t('page.of', { p: p + 1, n: pages, rows: rows.length })}</span>
          <button type="button" disabled={p >= pages - 1} onClick={() => setPage(p + 1)} aria-label={t('page.next')}>
            ›
          </button>
        </nav>
      )}
    </div>
  )
}

/** every problem the last error named under one request field (e.g. each row of the space) */
export function problemsFor(error: unknown, field: string): FieldProblem[] {
  if (!(error instanceof ApiError) || error.status !== 422) return []
  return error.problems.filter(p => p.field === field)
}

/** the problem of one request field, if the last error named it */
export function problemFor(error: unknown, ...fields: string[]): FieldProblem | null {
  if (!(error instanceof ApiError) || error.status !== 422) return null
  return error.problems.find(p => fields.includes(p.field)) ?? null
}
