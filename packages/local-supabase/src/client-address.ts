// The one rule for a request's client address, used by auth and the functions host alike:
// the socket peer, unless the peer is a proxy named in TRUSTED_PROXIES; then the X-Forwarded-For
// entry that proxy added (the rightmost), walking further left past entries that are trusted proxies
// too. Entries a client wrote itself sit to the left of what a trusted proxy appended, so they are
// never read unless every proxy to their right is trusted.
import { subscribe } from 'node:diagnostics_channel';
import { BlockList, isIP, type Socket } from 'node:net';

export interface TrustedProxies {
  /** Whether `ip` (already normalised) is a proxy whose X-Forwarded-For is believed. */
  has(ip: string): boolean;
  /** The entries as configured, for messages. */
  readonly list: readonly string[];
}

/** An address as written in a socket or a header, reduced to its plain form; undefined when it is none. */
export function normaliseAddress(raw: string | undefined | null): string | undefined {
  if (!raw) return undefined;
  let s = raw.trim();
  // "[v6]:port" or "[v6]"
  const bracket = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracket) s = bracket[1];
  // "v4:port"
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(':'));
  // A zone ("fe80::1%eth0") names an interface of the receiving host, not part of the address.
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  const family = isIP(s);
  if (family === 0) return undefined;
  if (family === 6) {
    s = s.toLowerCase();
    // IPv4-mapped IPv6 (a dual-stack socket's view of an IPv4 peer) is that IPv4 address.
    const mapped = /^(?:0{0,4}:){0,4}:?(?:0{0,4}:)?ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(s);
    if (mapped && isIP(mapped[1]) === 4) return mapped[1];
    const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(s);
    if (hex) {
      const hi = Number.parseInt(hex[1], 16);
      const lo = Number.parseInt(hex[2], 16);
      return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
    }
  }
  return s;
}

/**
 * TRUSTED_PROXIES: comma-separated IPs and CIDRs (IPv4 or IPv6). Empty or unset trusts none.
 * A malformed entry stops the start with a message naming it, rather than silently trusting nothing.
 */
export function parseTrustedProxies(value: string | undefined): TrustedProxies {
  const blocks = new BlockList();
  const list = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of list) {
    const [addr, prefix, extra] = entry.split('/');
    const ip = normaliseAddress(addr);
    const family = ip ? isIP(ip) : 0;
    const bits = prefix === undefined ? undefined : /^\d{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN;
    const max = family === 4 ? 32 : 128;
    if (!ip || extra !== undefined || (bits !== undefined && (Number.isNaN(bits) || bits > max))) {
      throw new Error(`TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR (e.g. 10.0.0.0/8, ::1)`);
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) blocks.addAddress(ip, type);
    else blocks.addSubnet(ip, bits, type);
  }
  return {
    list,
    has(ip) {
      const family = isIP(ip);
      if (family === 0 || list.length === 0) return false;
      return blocks.check(ip, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

/**
 * The client's address: the peer, or (when the peer is a trusted proxy) the nearest X-Forwarded-For
 * entry that is not itself a trusted proxy. Undefined only when there is no peer (an in-process request).
 */
export function clientAddress(
  peer: string | undefined | null,
  forwardedFor: string | undefined | null,
  trusted: TrustedProxies,
): string | undefined {
  let current = normaliseAddress(peer);
  if (!current) return undefined;
  const entries = (forwardedFor ?? '').split(',');
  for (let i = entries.length - 1; i >= 0 && trusted.has(current); i--) {
    const entry = entries[i].trim();
    if (entry === '') continue;
    const ip = normaliseAddress(entry);
    // A garbled entry ends the walk: the last trusted hop is the best address known.
    if (!ip) break;
    current = ip;
  }
  return current;
}

// Client sockets this process opened (the functions host's calls to auth, the contact retry timer): a
// request arriving on one of them comes from the stack itself, not from a proxy in front of it.
const ownSockets = new Set<Socket>();
let watchingOwnSockets = false;

function watchOwnSockets(): void {
  if (watchingOwnSockets) return;
  watchingOwnSockets = true;
  // Every client socket of the process, fetch's included, is announced here when it is created.
  subscribe('net.client.socket', (message) => {
    const socket = (message as { socket: Socket }).socket;
    ownSockets.add(socket);
    socket.once('close', () => ownSockets.delete(socket));
  });
}

function isOwnConnection(peerPort: number | undefined): boolean {
  if (peerPort === undefined) return false;
  for (const socket of ownSockets) if (socket.localPort === peerPort) return true;
  return false;
}

const isLoopback = (ip: string) => ip === '::1' || ip.startsWith('127.');

/**
 * With TRUSTED_PROXIES empty, a request that carries X-Forwarded-For from a loopback peer other than the
 * stack itself most likely came through a proxy on this machine (nginx): then every visitor is that one
 * address for the per-address limits, and one client can lock everyone out. Returns a check that logs
 * a warning saying what to set, once; undefined when proxies are configured.
 */
export function untrustedProxyCheck(
  trusted: TrustedProxies,
  warn: (message: string) => void = console.warn,
): ((peer: string | undefined, peerPort: number | undefined, forwardedFor: string | undefined) => void) | undefined {
  if (trusted.list.length > 0) return undefined;
  watchOwnSockets();
  let warned = false;
  return (peer, peerPort, forwardedFor) => {
    if (warned || !forwardedFor) return;
    const ip = normaliseAddress(peer);
    if (!ip || !isLoopback(ip) || isOwnConnection(peerPort)) return;
    warned = true;
    warn(
      `warning: a request from ${ip} carries X-Forwarded-For (${forwardedFor.slice(0, 100)}) but TRUSTED_PROXIES ` +
        'is empty, so the header is ignored: behind a proxy on this machine every visitor counts as ' +
        `${ip} for the per-address rate limits, and one client can lock everyone out. Set ` +
        'TRUSTED_PROXIES=127.0.0.1,::1 and have the proxy append the client ' +
        '(nginx: proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for). Shown once.',
    );
  };
}
