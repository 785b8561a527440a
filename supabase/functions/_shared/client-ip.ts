// The caller's IP as the gateway in front of the function reports it.
// Hosted Supabase: the API gateway (Kong behind Supabase's edge network) sends the caller's address as
// the first X-Forwarded-For entry (X-Real-IP carries it too); a function cannot see the socket itself.
// Local stack: the functions host replaces X-Forwarded-For with the one address it worked out (the socket
// peer, or what a proxy named in TRUSTED_PROXIES forwarded), so the first entry is right in both places.
export function clientIp(req: Request): string {
  const forwarded = req.headers.get('x-forwarded-for')?.split(',')[0]?.trim();
  const ip = forwarded || req.headers.get('x-real-ip')?.trim() || '';
  // Anything longer than an IPv6 address with a zone is not an address.
  return ip && ip.length <= 64 ? ip : 'unknown';
}

/** The caller's User-Agent, cut to a length worth storing. */
export function userAgent(req: Request, max = 500): string | null {
  const ua = req.headers.get('user-agent');
  return ua ? ua.slice(0, max) : null;
}
