/**
 * No server-side request forgery: a webhook target must be a public address. An operator
 * registers URLs, but a URL that names 127.0.0.1, a LAN host, the cloud metadata address
 * (169.254.169.254) or a name that resolves to one would let the service be aimed at what
 * sits behind its own firewall. Refused unless WEBHOOK_ALLOW_PRIVATE=1.
 *
 * An address is allowed only when ipaddr.js classes it `unicast` (public): loopback,
 * private (10/8, 172.16/12, 192.168/16), link-local (169.254/16, fe80::/10), unique-local
 * (fc00::/7), carrier-grade NAT, unspecified, multicast, broadcast, reserved and the v6
 * forms that carry a v4 address (6to4, Teredo, NAT64) are all refused; an IPv4-mapped v6
 * address (::ffff:127.0.0.1) is judged as the v4 address it maps. A host name is resolved
 * and refused when any of its addresses is refused. The check runs at registration and
 * again before every delivery (DNS can change between the two).
 */
import { lookup } from 'node:dns/promises'
import ipaddr from 'ipaddr.js'

/** host name → every address it resolves to (injectable: tests resolve made-up names without DNS) */
export type Resolver = (host: string) => Promise<string[]>

export const systemResolver: Resolver = async host => (await lookup(host, { all: true, verbatim: true })).map(a => a.address)

/** Why `address` (an IP literal) may not be a target, or null when it may. */
export function refusedAddress(address: string): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`
  const ip = ipaddr.process(address) // ::ffff:a.b.c.d → a.b.c.d
  const range = ip.range()
  return range === 'unicast' ? null : `${ip.toString()} is a ${range} address`
}

export interface TargetPolicy {
  allowPrivate: boolean
  resolve: Resolver
}

/**
 * Why `url` may not be a target (an http(s) URL to a public address, no credentials in it),
 * or null when it may. `null` also when private targets are allowed and the URL is well formed.
 */
export async function refusedTarget(url: string, policy: TargetPolicy): Promise<string | null> {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return 'not a URL'
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `expected an http(s) URL, got ${u.protocol}`
  if (u.username || u.password) return 'a URL with credentials in it is refused (they would be sent in clear to every redirect and log)'
  if (policy.allowPrivate) return null
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1')
  if (ipaddr.isValid(host)) {
    const why = refusedAddress(host)
    return why && `${why}: private and loopback targets are refused (WEBHOOK_ALLOW_PRIVATE=1 allows them)`
  }
  let addresses: string[]
  try {
    addresses = await policy.resolve(host)
  } catch (e) {
    return `${host} does not resolve (${(e as Error)?.message ?? e})`
  }
  if (addresses.length === 0) return `${host} does not resolve`
  for (const a of addresses) {
    const why = refusedAddress(a)
    if (why) return `${host} resolves to ${why}: private and loopback targets are refused (WEBHOOK_ALLOW_PRIVATE=1 allows them)`
  }
  return null
}
