/**
 * A real SMTP server on 127.0.0.1 (the smtp-server package) that keeps what it receives.
 * `failNext(code)` makes the next delivery fail with that reply code (4xx: temporary, 5xx: permanent).
 */
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export interface SmtpSink {
  url: string
  received: { to: string[]; raw: string }[]
  /** connection errors (a client killed mid-session resets its socket) */
  errors: Error[]
  failNext(code: number, times?: number): void
  close(): Promise<void>
}

/** `port` 0 (default): a free port */
export async function startSmtpSink(port = 0): Promise<SmtpSink> {
  const received: { to: string[]; raw: string }[] = []
  let failures: { code: number; left: number } | null = null
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, cb) {
      const chunks: Buffer[] = []
      stream.on('data', d => chunks.push(d))
      stream.on('end', () => {
        if (failures && failures.left > 0) {
          failures.left--
          const err = Object.assign(new Error(failures.code >= 500 ? 'mailbox unavailable' : 'try again later'), { responseCode: failures.code })
          return cb(err)
        }
        received.push({ to: session.envelope.rcptTo.map(r => r.address), raw: Buffer.concat(chunks).toString() })
        cb()
      })
    },
  })
  // without a listener, a client reset (ECONNRESET) is thrown as an unhandled 'error' event
  const errors: Error[] = []
  server.on('error', e => errors.push(e))
  await new Promise<void>(r => server.listen(port, '127.0.0.1', () => r()))
  const bound = (server.server.address() as AddressInfo).port
  return {
    url: `smtp://127.0.0.1:${bound}`,
    received,
    errors,
    failNext(code, times = 1) {
      failures = { code, left: times }
    },
    close: () => new Promise<void>(r => server.close(() => r())),
  }
}
