// The caller's IP, as the platform in front of the function states it: the CF-Connecting-IP header.
//
// Hosted Supabase: a request to https://<ref>.supabase.co/functions/v1/… crosses Cloudflare before it reaches
// the function (the headers a hosted function receives include cf-ray, cf-visitor, cdn-loop: cloudflare and
// cf-worker: supabase.co; https://supabase.com/docs/guides/functions/functions-headers). Cloudflare documents
// CF-Connecting-IP as "the client IP address connecting to Cloudflare", set by Cloudflare itself, while an
// X-Forwarded-For the client sent is kept and Cloudflare only appends to it
// (https://developers.cloudflare.com/fundamentals/reference/http-headers/). So the leftmost X-Forwarded-For
// entry is whatever the caller wrote (reported against hosted Supabase, with CF-Connecting-IP holding the real
// address: https://github.com/orgs/supabase/discussions/34647) and is never read here; neither is X-Real-IP,
// which no part of the platform documents for functions.
//
// Local stack: the functions host sets CF-Connecting-IP to the one address it worked out (the socket peer, or
// what a proxy named in TRUSTED_PROXIES forwarded), overwriting any the client sent, and appends to
// X-Forwarded-For as Cloudflare does, so this code reads the same header in both places.
//
// A request without the header (or with something that is not an address in it) is counted as 'unknown':
// one shared bucket, so leaving the header out never earns a fresh limit.
//
// Per-address limits count an IPv6 address by its /64 (addressKey): one subscriber, host or server usually
// holds a whole /64, so counting each full address would give one caller 2^64 fresh limits.
export const CLIENT_IP_HEADER = 'cf-connecting-ip';

// IPv4 or IPv6 text (hex digits, dots, colons), at most the length of an IPv6 address with an IPv4 tail.
const ADDRESS = /^[0-9A-Fa-f:.]{2,45}$/;
// An IPv6 zone id (fe80::1%eth0): it names an interface of the host that saw the address, nothing of the caller.
const ZONE = /%[0-9A-Za-z._~-]{1,64}$/;

export function clientIp(req: Request): string {
  const ip = (req.headers.get(CLIENT_IP_HEADER)?.trim() ?? '').replace(ZONE, '');
  return ADDRESS.test(ip) ? ip : 'unknown';
}

/** An IPv4 address in dotted decimal, as four numbers; undefined if `text` is not one. */
function ipv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number);
}

/** An IPv6 address as its eight 16-bit groups (`::` expanded, an IPv4 tail as two groups); undefined if not one. */
function ipv6(text: string): number[] | undefined {
  let rest = text.toLowerCase();
  const tail: number[] = [];
  const lastColon = rest.lastIndexOf(':');
  if (rest.includes('.')) {
    const v4 = ipv4(rest.slice(lastColon + 1));
    if (!v4 || lastColon < 0) return undefined;
    tail.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
    // Keep the colon before the tail when it ends a `::` ("::ffff:1.2.3.4" -> "::ffff", "::1.2.3.4" -> "::").
    rest = rest.slice(0, rest.endsWith('::', lastColon + 1) ? lastColon + 1 : lastColon);
  }
  const halves = rest.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string) => (half === '' ? [] : half.split(':'));
  const [head, back = undefined] = halves.map(groups);
  const hex = [...head, ...(back ?? [])];
  if (!hex.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  const given = hex.length + tail.length;
  if (back === undefined ? given !== 8 : given > 7) return undefined;
  const zeros = new Array<number>(8 - given).fill(0);
  return [...head.map((g) => parseInt(g, 16)), ...zeros, ...(back ?? []).map((g) => parseInt(g, 16)), ...tail];
}

/**
 * The key a per-address limit counts `ip` under: an IPv4 address as it is; an IPv4-mapped IPv6 address
 * (::ffff:192.0.2.1) as the IPv4 address it carries; any other IPv6 address as its /64, written as RFC 5952
 * writes addresses (lower case, no leading zeros, `::` for the zero groups: 2001:db8:0:1::/64), whatever form it
 * came in; a zone id is dropped. Anything else, 'unknown' included, is 'unknown': one shared bucket.
 */
export function addressKey(ip: string): string {
  const text = ip.trim().replace(ZONE, '');
  const v4 = ipv4(text);
  if (v4) return v4.join('.');
  const g = text.includes(':') ? ipv6(text) : undefined;
  if (!g) return 'unknown';
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) {
    return [g[6] >> 8, g[6] & 255, g[7] >> 8, g[7] & 255].join('.');
  }
  // The last four groups are zero, the longest run there can be, so `::` stands for them and for any zero
  // groups right before them.
  const prefix = g.slice(0, 4);
  while (prefix.length > 0 && prefix[prefix.length - 1] === 0) prefix.pop();
  return `${prefix.map((x) => x.toString(16)).join(':')}::/64`;
}

/** The caller's User-Agent, cut to a length worth storing. */
export function userAgent(req: Request, max = 500): string | null {
  const ua = req.headers.get('user-agent');
  return ua ? ua.slice(0, max) : null;
}
