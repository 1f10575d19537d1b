/**
 * Just enough MIME to read what our mails carry in tests: unfolded headers, and the
 * decoded text/plain and text/html parts (7bit, quoted-printable or base64; multipart
 * nested one or more levels).
 */

export interface ParsedMail {
  headers: Map<string, string>
  text: string | null
  html: string | null
}

function splitHead(raw: string): { head: string; body: string } {
  const m = /\r?\n\r?\n/.exec(raw)
  return m ? { head: raw.slice(0, m.index), body: raw.slice(m.index + m[0].length) } : { head: raw, body: '' }
}

function parseHeaders(head: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':')
    if (i > 0) out.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim())
  }
  return out
}

function decode(body: string, encoding: string | undefined): string {
  const enc = (encoding ?? '7bit').toLowerCase()
  if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
  if (enc === 'quoted-printable') {
    const soft = body.replace(/=\r?\n/g, '')
    const bytes: number[] = []
    for (let i = 0; i < soft.length; i++) {
      if (soft[i] === '=' && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
        bytes.push(parseInt(soft.slice(i + 1, i + 3), 16))
        i += 2
      } else bytes.push(...Buffer.from(soft[i], 'utf8'))
    }
    return Buffer.from(bytes).toString('utf8')
  }
  return body
}

export function parseMail(raw: string): ParsedMail {
  const { head, body } = splitHead(raw)
  const headers = parseHeaders(head)
  const out: ParsedMail = { headers, text: null, html: null }
  const walk = (h: Map<string, string>, b: string) => {
    const type = h.get('content-type') ?? 'text/plain'
    const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1]
    if (/^multipart\//i.test(type) && boundary) {
      for (const part of b.split(`--${boundary}`).slice(1)) {
        if (part.startsWith('--')) break
        const p = splitHead(part.replace(/^\r?\n/, ''))
        walk(parseHeaders(p.head), p.body)
      }
    } else if (/^text\/plain/i.test(type)) out.text = decode(b, h.get('content-transfer-encoding'))
    else if (/^text\/html/i.test(type)) out.html = decode(b, h.get('content-transfer-encoding'))
  }
  walk(headers, body)
  return out
}
