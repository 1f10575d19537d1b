/**
 * The service's log: one JSON object per line on stderr (stdout stays for data), with
 * `time`, `level`, `msg` and any fields of the event; LOG_LEVEL filters by level.
 * Messages are plain text; control characters in them are escaped by JSON itself.
 */
import type { LogLevel } from './config'

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 }

export type LogFields = Record<string, string | number | boolean | null | undefined>

export interface Logger {
  debug(msg: string, fields?: LogFields): void
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
  /** false when `level` lines would be dropped (skip building them) */
  enabled(level: LogLevel): boolean
}

export function createLogger(level: LogLevel, write: (line: string) => void = line => process.stderr.write(line)): Logger {
  const at = (l: LogLevel) => (msg: string, fields?: LogFields) => {
    if (ORDER[l] >= ORDER[level]) write(JSON.stringify({ time: new Date().toISOString(), level: l, msg, ...fields }) + '\n')
  }
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), enabled: l => ORDER[l] >= ORDER[level] }
}
