// The engine signs each request as webhooks are signed: X-Signal-Timestamp is the time in unix seconds and
// X-Signal-Signature is `v1=<hex HMAC-SHA256 of "<timestamp>.<raw body>">` under SIGNALS_INGEST_SECRET. The
// HMAC is checked with WebCrypto's verify (constant time, on Deno and Node alike), over the body's bytes as
// received, before the body is parsed. A timestamp more than 5 minutes from the function's clock is refused, so
// a captured request cannot be replayed later.

/** How far the timestamp may be from now, in seconds, either way. */
export const TOLERANCE_SECONDS = 300;
/** The shortest SIGNALS_INGEST_SECRET accepted. */
export const MIN_SECRET_LENGTH = 32;

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

const encoder = new TextEncoder();

/** The HMAC key from SIGNALS_INGEST_SECRET; throws naming the secret when it is missing or short. */
export async function signingKey(secret: string | undefined): Promise<CryptoKey> {
  const value = secret?.trim() ?? '';
  if (value.length < MIN_SECRET_LENGTH) {
    throw new Error(
      `SIGNALS_INGEST_SECRET must be set to a random value of at least ${MIN_SECRET_LENGTH} characters ` +
        '(e.g. openssl rand -hex 32): it authenticates the signal engine',
    );
  }
  return crypto.subtle.importKey('raw', encoder.encode(value), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
}

/** The bytes signed: `<timestamp>.` then the raw body. */
function signedBytes(timestamp: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${timestamp}.`);
  const bytes = new Uint8Array(prefix.byteLength + body.byteLength);
  bytes.set(prefix, 0);
  bytes.set(body, prefix.byteLength);
  return bytes;
}

/** `v1=<hex>` for `body` at `timestamp`: what the engine sends (and the tests and tools sign with). */
export async function sign(key: CryptoKey, timestamp: string, body: Uint8Array | string): Promise<string> {
  const bytes = typeof body === 'string' ? encoder.encode(body) : body;
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, signedBytes(timestamp, bytes)));
  return `v1=${Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[0-9a-f]{64}$/i.test(hex)) return undefined;
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** Checks the two headers against the raw body at `nowMs`. */
export async function checkSignature(
  key: CryptoKey,
  timestamp: string | null,
  signature: string | null,
  body: Uint8Array,
  nowMs: number,
): Promise<SignatureCheck> {
  if (!timestamp || !signature) {
    return { ok: false, reason: 'Sign the request: X-Signal-Timestamp and X-Signal-Signature are required.' };
  }
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'X-Signal-Timestamp must be unix seconds.' };
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) {
    return { ok: false, reason: `X-Signal-Timestamp is more than ${TOLERANCE_SECONDS} seconds from now.` };
  }
  // Several comma-separated signatures may come while a secret is rotated: one good one suffices.
  for (const part of signature.split(',')) {
    const [version, hex] = part.trim().split('=', 2);
    const mac = version === 'v1' && hex ? hexBytes(hex) : undefined;
    if (mac && (await crypto.subtle.verify('HMAC', key, mac, signedBytes(timestamp, body)))) return { ok: true };
  }
  return { ok: false, reason: 'X-Signal-Signature does not match the body.' };
}
