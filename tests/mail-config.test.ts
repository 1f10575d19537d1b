import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../src/config'

describe('mail settings', () => {
  test('default: no SMTP (the file outbox), a local From, no public URL', () => {
    const c = loadConfig({})
    expect(c.mail).toEqual({ smtpUrl: null, from: 'perpsim <perpsim@localhost>' })
    expect(c.publicUrl).toBeNull()
  })

  test('SMTP_URL takes smtp:// and smtps:// URLs with their options', () => {
    expect(loadConfig({ SMTP_URL: 'smtps://u:p@mail.example.org:465' }).mail.smtpUrl).toBe('smtps://u:p@mail.example.org:465')
    expect(loadConfig({ SMTP_URL: 'smtp://mail.example.org:587?requireTLS=true' }).mail.smtpUrl).toBe('smtp://mail.example.org:587?requireTLS=true')
  })

  test('a bad SMTP_URL stops start-up without echoing its password', () => {
    for (const bad of ['http://u:secret@mail.example.org', 'not a url secret']) {
      expect(() => loadConfig({ SMTP_URL: bad })).toThrow(ConfigError)
      try {
        loadConfig({ SMTP_URL: bad })
      } catch (e) {
        expect((e as Error).message).not.toContain('secret')
      }
    }
  })

  test('MAIL_FROM is an address or Name <address>, never with a line break', () => {
    expect(loadConfig({ MAIL_FROM: 'Alerts <alerts@example.org>' }).mail.from).toBe('Alerts <alerts@example.org>')
    expect(loadConfig({ MAIL_FROM: 'alerts@example.org' }).mail.from).toBe('alerts@example.org')
    for (const bad of ['alerts', 'a@b.org\r\nBcc: x@y.org', '<>']) expect(() => loadConfig({ MAIL_FROM: bad })).toThrow(ConfigError)
  })

  test('PUBLIC_URL is an http(s) URL, kept without a trailing slash', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://perpsim.example.org/' }).publicUrl).toBe('https://perpsim.example.org')
    expect(() => loadConfig({ PUBLIC_URL: 'javascript:alert(1)' })).toThrow(ConfigError)
  })
})
