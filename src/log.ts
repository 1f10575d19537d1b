/** A one-line logger that honours LOG_LEVEL; writes to stderr so stdout stays for data. */
import type { LogLevel } from './config'

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 }

export interface Logger {
  debug(msg: string): void
  info(msg: string): void
  warn(msg: string): void
  error(msg: string): void
}

export function createLogger(level: LogLevel): Logger {
  const at = (l: LogLevel) => (msg: string) => {
    if (ORDER[l] >= ORDER[level]) process.stderr.write(`${new Date().toISOString()} ${l.toUpperCase()} ${msg}\n`)
  }
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}
