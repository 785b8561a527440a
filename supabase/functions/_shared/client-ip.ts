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
export const CLIENT_IP_HEADER = 'cf-connecting-ip';

// IPv4 or IPv6 text (hex digits, dots, colons), at most the length of an IPv6 address with an IPv4 tail.
const ADDRESS = /^[0-9A-Fa-f:.]{2,45}$/;

export function clientIp(req: Request): string {
  const ip = req.headers.get(CLIENT_IP_HEADER)?.trim() ?? '';
  return ADDRESS.test(ip) ? ip : 'unknown';
}

/** The caller's User-Agent, cut to a length worth storing. */
export function userAgent(req: Request, max = 500): string | null {
  const ua = req.headers.get('user-agent');
  return ua ? ua.slice(0, max) : null;
}
