/**
 * A Redis connection (ioredis) for the queue, the fleet registry and the shared rate limits:
 * its errors are reported once per kind instead of ioredis's stack per reconnect attempt.
 * `maxRetriesPerRequest: null` is what BullMQ's blocking connections require; the rate
 * limiter asks for no offline queue instead (a request is never held while Redis is down).
 */
import { Redis, type RedisOptions } from 'ioredis'

export function redisClient(url: string, onError: (message: string) => void = () => {}, options: RedisOptions = { maxRetriesPerRequest: null, lazyConnect: false }): Redis {
  const client = new Redis(url, options)
  let last = ''
  client.on('error', (e: Error) => {
    const msg = (e as { code?: string }).code ?? e.message
    if (msg !== last) onError(`redis: ${msg}`)
    last = msg
  })
  client.on('ready', () => (last = ''))
  return client
}
