/** The real started server: cards, subscription and mail wired in `serve` (SMTP and the file outbox). */
import { afterAll, describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from './helpers/fixtures'
import { parseMail } from './helpers/mime'
import { startSmtpSink } from './helpers/smtp-sink'
import { BUN, freePort, ROOT } from './helpers/serve'

const dirs: string[] = []
afterAll(() => dirs.forEach(d => rmSync(d, { recursive: true, force: true })))

/** a small synthetic store, then `serve` on it; resolves once /health answers */
async function serve(env: Record<string, string>, port?: number) {
  const dataDir = tempDir()
  dirs.push(dataDir)
  const base = { ...process.env, DATA_DIR: dataDir, OFFLINE: '1', LOG_LEVEL: 'info', HOST: '127.0.0.1' }
  expect(Bun.spawnSync([BUN, 'src/cli.ts', 'data', 'generate', '--coins', '12', '--days', '60'], { cwd: ROOT, env: base }).exitCode).toBe(0)
  port ??= await freePort()
  const proc = Bun.spawn([BUN, 'src/cli.ts', 'serve'], { cwd: ROOT, env: { ...base, PORT: String(port), ...env }, stdout: 'pipe', stderr: 'pipe' })
  const url = `http://127.0.0.1:${port}`
  const started = Date.now()
  while (Date.now() - started < 30_000 && proc.exitCode === null) {
    try {
      if ((await fetch(`${url}/health`)).ok) break
    } catch {}
    await Bun.sleep(100)
  }
  return {
    url,
    dataDir,
    async stop(): Promise<string> {
      proc.kill('SIGTERM')
      await proc.exited
      return new Response(proc.stderr).text()
    },
  }
}

const until = async (check: () => boolean, ms = 15_000) => {
  const t = Date.now()
  while (!check() && Date.now() - t < ms) await Bun.sleep(50)
  return check()
}

describe('serve with SMTP_URL', () => {
  test('subscribe → confirmation mail over SMTP → confirm; /og and /share over HTTP', async () => {
    const smtp = await startSmtpSink()
    const port = await freePort()
    const s = await serve({ SMTP_URL: smtp.url, PUBLIC_URL: `http://127.0.0.1:${port}` }, port)
    try {
      const sub = await fetch(`${s.url}/api/subscribe`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'e2e@example.org', lang: 'en' }) })
      expect(sub.status).toBe(202)
      expect(await until(() => smtp.received.some(m => m.to.includes('e2e@example.org')))).toBe(true)
      const mail = parseMail(smtp.received.find(m => m.to.includes('e2e@example.org'))!.raw)
      const link = /http:\/\/127\.0\.0\.1:\d+\/api\/subscribe\/confirm\?\S+/.exec(mail.text!)![0]
      const confirmed = await fetch(link)
      expect(confirmed.status).toBe(200)
      expect(await confirmed.text()).toContain('Subscription confirmed')

      const og = await fetch(`${s.url}/og?topN=5&lang=ko`)
      expect(og.status).toBe(200)
      expect(og.headers.get('content-type')).toBe('image/png')
      const png = new Uint8Array(await og.arrayBuffer())
      const v = new DataView(png.buffer)
      expect([v.getUint32(16), v.getUint32(20)]).toEqual([1200, 630])

      const page = await (await fetch(`${s.url}/share?preset=bb-squeeze-short&topN=5`)).text()
      const image = /<meta property="og:image" content="([^"]+)">/.exec(page)![1].replaceAll('&amp;', '&')
      expect(image.startsWith(`${s.url}/og?`)).toBe(true)
      expect((await fetch(image)).status).toBe(200)
    } finally {
      await s.stop()
      await smtp.close()
    }
  }, 60_000)
})

describe('serve without SMTP_URL', () => {
  test('says where mails go and writes the confirmation as an .eml file there', async () => {
    const s = await serve({})
    let log = ''
    try {
      const sub = await fetch(`${s.url}/api/subscribe`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'file@example.org', lang: 'ko' }) })
      expect(sub.status).toBe(202)
      const outbox = join(s.dataDir, 'outbox')
      const emls = () => {
        try {
          return readdirSync(outbox).filter(f => f.endsWith('.eml'))
        } catch {
          return []
        }
      }
      expect(await until(() => emls().length === 1)).toBe(true)
      const mail = parseMail(readFileSync(join(outbox, emls()[0]), 'utf8'))
      expect(mail.headers.get('to')).toBe('file@example.org')
      expect(mail.text).toContain('/api/subscribe/confirm?')
    } finally {
      log = await s.stop()
    }
    expect(log).toContain(`mails are written as .eml files to ${join(s.dataDir, 'outbox')}`)
  }, 60_000)
})
