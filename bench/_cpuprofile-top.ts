/**
 * The top of a .cpuprofile (bun --cpu-prof): self time per function and the total (self +
 * callees) per function, in ms and % of the sampled time.
 *   bun bench/_cpuprofile-top.ts <file.cpuprofile> [N] [--after functionName]
 * `--after f`: only the samples after the first one in `f` (bench/_profile-warm.ts's profileMark).
 */
import { readFileSync } from 'node:fs'

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[]; hitCount?: number }
const prof = JSON.parse(readFileSync(process.argv[2], 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] }
const N = Number(process.argv[3]) || 40
const afterAt = process.argv.indexOf('--after')
const after = afterAt >= 0 ? process.argv[afterAt + 1] : null
const byId = new Map(prof.nodes.map(n => [n.id, n]))
const parent = new Map<number, number>()
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
const selfMs = new Map<number, number>()
let from = 0
if (after) {
  from = prof.samples.findIndex(id => byId.get(id)!.callFrame.functionName === after)
  if (from < 0) throw new Error(`no sample in ${after}`)
  while (from < prof.samples.length && byId.get(prof.samples[from])!.callFrame.functionName === after) from++
}
for (let i = from; i < prof.samples.length; i++) selfMs.set(prof.samples[i], (selfMs.get(prof.samples[i]) ?? 0) + (prof.timeDeltas[i] ?? 0) / 1000)
const name = (n: Node) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/.*\/(src|bench|node_modules)\//, '$1/')}:${n.callFrame.lineNumber + 1}`
const self = new Map<string, number>()
const total = new Map<string, number>()
let all = 0
for (const [id, ms] of selfMs) {
  all += ms
  const n = byId.get(id)!
  self.set(name(n), (self.get(name(n)) ?? 0) + ms)
  const seen = new Set<string>()
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const k = name(byId.get(cur)!)
    if (seen.has(k)) continue
    seen.add(k)
    total.set(k, (total.get(k) ?? 0) + ms)
  }
}
const show = (m: Map<string, number>, title: string) => {
  console.log(`\n${title} (of ${all.toFixed(0)} ms sampled)`)
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, N)) console.log(`${v.toFixed(1).padStart(9)} ms ${((100 * v) / all).toFixed(1).padStart(5)} %  ${k}`)
}
show(self, 'self time')
show(total, 'total time')
