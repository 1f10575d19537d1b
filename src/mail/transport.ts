/**
 * Where mails go: an SMTP server through nodemailer (SMTP_URL), or, with no SMTP
 * configured, `.eml` files in DATA_DIR/outbox/ built by the same nodemailer composer, so
 * a file is byte for byte the message SMTP would have carried.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer'

export interface OutgoingMail {
  /** unique and stable per outbox row: the .eml file name and the Message-ID's left part */
  key: string
  to: string
  subject: string
  text: string
  html: string
  /** RFC 8058 one-click unsubscribe URL; sets List-Unsubscribe and List-Unsubscribe-Post */
  unsubscribeUrl?: string
}

/**
 * A send that failed. `permanent` (an SMTP 5xx answer about this mail) is not retried;
 * `unreachable` (no connection to the server at all) says every other mail would fail the
 * same way now.
 */
export class SendFailed extends Error {
  constructor(message: string, readonly permanent: boolean, readonly unreachable = false) {
    super(message)
  }
}

/** nodemailer's codes for a server that could not be reached or spoken to */
const UNREACHABLE_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'EGREETING', 'EAUTH', 'ETLS'])

export interface MailTransport {
  /** for the log: where mails go, without credentials */
  readonly description: string
  send(mail: OutgoingMail): Promise<void>
  close(): void
}

function messageOf(from: string, mail: OutgoingMail, domain: string): SendMailOptions {
  const headers: Record<string, string> = {}
  const opts: SendMailOptions = {
    from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    messageId: `<${mail.key}@${domain}>`,
    headers,
  }
  if (mail.unsubscribeUrl) {
    opts.list = { unsubscribe: { url: mail.unsubscribeUrl, comment: 'Unsubscribe' } }
    // nodemailer's list.unsubscribePost writes a malformed header (STACK §13): set it directly
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click'
  }
  return opts
}

const domainOf = (from: string) => /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost'

export class SmtpTransport implements MailTransport {
  private readonly transporter: Transporter
  readonly description: string

  constructor(smtpUrl: string, private readonly from: string) {
    // pooled (a few connections kept open and reused), unless the URL says otherwise: a
    // weekly alert to thousands would otherwise open one connection per mail
    this.transporter = nodemailer.createTransport(/[?&]pool=/.test(smtpUrl) ? smtpUrl : `${smtpUrl}${smtpUrl.includes('?') ? '&' : '?'}pool=true`)
    const u = new URL(smtpUrl)
    this.description = `SMTP ${u.protocol}//${u.hostname}:${u.port || (u.protocol === 'smtps:' ? 465 : 587)}`
  }

  async send(mail: OutgoingMail): Promise<void> {
    try {
      await this.transporter.sendMail(messageOf(this.from, mail, domainOf(this.from)))
    } catch (e) {
      const err = e as { responseCode?: number; message?: string; code?: string }
      const unreachable = typeof err.code === 'string' && UNREACHABLE_CODES.has(err.code)
      throw new SendFailed(String(err.message ?? e), !unreachable && typeof err.responseCode === 'number' && err.responseCode >= 500, unreachable)
    }
  }

  close(): void {
    this.transporter.close()
  }
}

export class FileTransport implements MailTransport {
  private readonly composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
  readonly description: string

  constructor(private readonly dir: string, private readonly from: string) {
    this.description = `.eml files in ${dir}`
  }

  async send(mail: OutgoingMail): Promise<void> {
    const info = await this.composer.sendMail(messageOf(this.from, mail, domainOf(this.from)))
    mkdirSync(this.dir, { recursive: true })
    const file = join(this.dir, `${mail.key}.eml`)
    // whole files only: written aside, then renamed (a rerun overwrites the same name)
    const partial = `${file}.partial`
    writeFileSync(partial, info.message as Buffer)
    renameSync(partial, file)
  }

  close(): void {}
}

/** The transport the configuration asks for: SMTP when SMTP_URL is set, else the file outbox. */
export function mailTransport(cfg: { smtpUrl: string | null; from: string }, dataDir: string): MailTransport {
  return cfg.smtpUrl ? new SmtpTransport(cfg.smtpUrl, cfg.from) : new FileTransport(join(dataDir, 'outbox'), cfg.from)
}
