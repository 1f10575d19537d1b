/**
 * GET /metrics: Prometheus text exposition (prom-client) for a scraper on this machine.
 * Only a loopback caller whose request carries no forwarding header is answered; anyone
 * else gets the ordinary 404, so the endpoint's existence is not confirmed (contract,
 * "Authentication" 4). Labels are method, route TEMPLATE and status class only: never an
 * address, e-mail, key, token or raw path. docs/operations.md lists every series.
 */
import { Elysia, NotFoundError } from 'elysia'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { AppDeps } from '../deps'
import { JobRuns } from '../records/job-runs'

const FORWARDING = ['x-forwarded-for', 'forwarded', 'x-real-ip', 'x-forwarded-host', 'x-forwarded-proto', 'via']

export function isLoopback(ip: string | undefined): boolean {
  if (!ip) return false
  return ip === '::1' || /^127\./.test(ip) || /^::ffff:127\./i.test(ip)
}

/** A scrape is answered only from loopback, and never when a proxy may have relayed it. */
export function isLocalScrape(ip: string | undefined, headers: Headers): boolean {
  return isLoopback(ip) && !FORWARDING.some(h => headers.has(h))
}

export interface HttpMetrics {
  registry: Registry
  observe(method: string, route: string, status: number, seconds: number): void
  inFlight: Gauge
}

export function createHttpMetrics(deps: Pick<AppDeps, 'runs' | 'db'>): HttpMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route template and status class',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  })
  const inFlight = new Gauge({ name: 'http_requests_in_flight', help: 'HTTP requests being handled', registers: [registry] })
  new Gauge({
    name: 'perpsim_runs_in_flight',
    help: 'simulation runs computing or waiting for a worker (QUEUE_MAX sheds beyond it)',
    registers: [registry],
    collect() {
      this.set(deps.runs.runStats().activeRuns)
    },
  })
  new Gauge({
    name: 'perpsim_worker_queue_depth',
    help: 'simulation tasks waiting for a worker',
    registers: [registry],
    collect() {
      this.set(deps.runs.runStats().pool?.queued ?? 0)
    },
  })
  new Gauge({
    name: 'perpsim_workers_busy',
    help: 'workers running a task now',
    registers: [registry],
    collect() {
      this.set(deps.runs.runStats().pool?.busy ?? 0)
    },
  })
  new Counter({
    name: 'perpsim_worker_busy_seconds_total',
    help: 'time workers spent on tasks',
    registers: [registry],
    collect() {
      this.reset()
      this.inc((deps.runs.runStats().pool?.busyMs ?? 0) / 1000)
    },
  })
  new Counter({
    name: 'perpsim_result_cache_lookups_total',
    help: 'result-cache lookups by outcome (hit ratio = hit / (hit + miss))',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      const s = deps.runs.runStats()
      this.reset()
      this.inc({ outcome: 'hit' }, s.cacheHits)
      this.inc({ outcome: 'miss' }, s.cacheMisses)
    },
  })
  // scheduled jobs, read from the scheduler's job_runs table (src/records/job-runs.ts) when it exists
  const jobRuns = new JobRuns(deps.db)
  const jobRows = () => jobRuns.summary()
  new Counter({
    name: 'perpsim_job_runs_total',
    help: 'finished scheduled job runs by job and outcome (ok, failed, skipped)',
    labelNames: ['job', 'outcome'] as const,
    registers: [registry],
    async collect() {
      this.reset()
      for (const r of await jobRows()) if (r.outcome) this.inc({ job: r.job, outcome: r.outcome }, r.n)
    },
  })
  new Counter({
    name: 'perpsim_job_run_seconds_total',
    help: 'time spent in finished scheduled job runs, by job (divide by perpsim_job_runs_total for the mean)',
    labelNames: ['job'] as const,
    registers: [registry],
    async collect() {
      this.reset()
      for (const r of await jobRows()) if (r.outcome) this.inc({ job: r.job }, r.ms / 1000)
    },
  })
  new Gauge({
    name: 'perpsim_jobs_running',
    help: 'scheduled job runs started and not finished',
    labelNames: ['job'] as const,
    registers: [registry],
    async collect() {
      this.reset()
      for (const r of await jobRows()) if (!r.outcome) this.set({ job: r.job }, r.n)
    },
  })
  return {
    registry,
    inFlight,
    observe(method, route, status, seconds) {
      duration.observe({ method, route, status_class: `${Math.floor(status / 100)}xx` }, seconds)
    },
  }
}

export function metricsRoute(metrics: HttpMetrics) {
  return new Elysia({ name: 'metrics' }).get(
    '/metrics',
    async ({ request, server, set }) => {
      if (!isLocalScrape(server?.requestIP(request)?.address, request.headers)) throw new NotFoundError()
      set.headers['content-type'] = metrics.registry.contentType
      set.headers['cache-control'] = 'no-store'
      return await metrics.registry.metrics()
    },
    { detail: { hide: true } },
  )
}
