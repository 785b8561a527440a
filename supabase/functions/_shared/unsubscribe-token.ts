// The tokens of one-click unsubscribe links (the newsletter's, the alert mails'): an HMAC-SHA-256 of a row's or a
// member's id under UNSUBSCRIBE_SECRET, after a label of the link's own, so a token of one kind never works for the
// other and the key signs nothing else by mistake. Unguessable, bound to one id, the same in every isolate and every
// mail, and checked without a database read (a forged link costs one HMAC, never a query).
import type { Env } from './env.ts';

/** A secret shorter than this is refused: the token is only as strong as the key. */
const MIN_SECRET_LENGTH = 32;

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** 32 bytes of HMAC in base64url: 43 characters. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

export interface UnsubscribeKey {
  token(id: string): Promise<string>;
  /** Whether `token` is the one for `id` (compared in constant time by WebCrypto's verify). */
  check(id: string, token: string): Promise<boolean>;
}

/**
 * The key of the links labelled `label` (e.g. `newsletter-unsubscribe:v1:`), from UNSUBSCRIBE_SECRET; throws naming
 * the secret when it is missing or short.
 */
export async function unsubscribeTokenKey(env: Env, label: string): Promise<UnsubscribeKey> {
  const secret = env.get('UNSUBSCRIBE_SECRET')?.trim() ?? '';
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new Error(
      `UNSUBSCRIBE_SECRET must be set to a random value of at least ${MIN_SECRET_LENGTH} characters ` +
        '(e.g. openssl rand -base64 32): it signs the unsubscribe links',
    );
  }
  const key = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  );
  const signed = (id: string) => new TextEncoder().encode(`${label}${id}`);
  return {
    async token(id) {
      return base64url(new Uint8Array(await crypto.subtle.sign('HMAC', key, signed(id.toLowerCase()))));
    },
    async check(id, token) {
      if (!UUID_SHAPE.test(id) || !TOKEN_SHAPE.test(token)) return false;
      return crypto.subtle.verify('HMAC', key, fromBase64url(token), signed(id));
    },
  };
}
