// The caller's IP as the gateway reports it: the first address in X-Forwarded-For.
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
