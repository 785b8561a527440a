// Small helpers shared by the auth integration tests: raw wire calls, mail links, clients with storage.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import type { MailMessage, TestStack } from './stack.ts';

let counter = 0;

/** A fresh address per call, so tests in one file never share a user. */
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}@example.com`;
}

/** A password that meets config.toml's policy (8+, lower, upper, digit, symbol). */
export const GOOD_PASSWORD = 'Sup3r-secret!';

export interface Raw {
  status: number;
  headers: Headers;
  body: any;
}

/** A call to /auth/v1 as supabase-js makes it (apikey, version header), overridable per test. */
export async function raw(
  t: TestStack,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string | undefined> } = {},
): Promise<Raw> {
  const headers: Record<string, string> = {
    apikey: t.config.anonKey,
    Authorization: `Bearer ${t.config.anonKey}`,
    'X-Supabase-Api-Version': '2024-01-01',
  };
  for (const [k, v] of Object.entries(init.headers ?? {})) {
    if (v === undefined) delete headers[k];
    else headers[k] = v;
  }
  if (init.body !== undefined) headers['Content-Type'] = 'application/json;charset=UTF-8';
  const res = await fetch(`${t.url}/auth/v1${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
    redirect: 'manual',
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body };
}

/** The verify link in an auth mail (text part). */
export function verifyLink(mail: MailMessage): string {
  const m = /https?:\/\/\S+\/auth\/v1\/verify\?\S+/.exec(mail.Text);
  if (!m) throw new Error(`no verify link in mail "${mail.Subject}": ${mail.Text}`);
  return m[0];
}

/** Follows an email link the way a browser's first hop does: no redirect, the Location is the answer. */
export async function openLink(link: string): Promise<{ status: number; location: string }> {
  const res = await fetch(link, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location') ?? '' };
}

/** The key/values of a Location's fragment. */
export function fragment(location: string): Record<string, string> {
  const hash = location.includes('#') ? location.slice(location.indexOf('#') + 1) : '';
  return Object.fromEntries(new URLSearchParams(hash));
}

export function memoryStorage() {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => {
      items.set(key, value);
    },
    removeItem: (key: string) => {
      items.delete(key);
    },
  };
}

/** A client that keeps its session in the given storage, as a browser tab would. */
export function storedClient(
  t: TestStack,
  storage = memoryStorage(),
  flowType: 'implicit' | 'pkce' = 'implicit',
): { client: SupabaseClient; storage: ReturnType<typeof memoryStorage> } {
  const client = createClient(t.url, t.config.anonKey, {
    auth: { storage, flowType, persistSession: true, autoRefreshToken: false, detectSessionInUrl: false },
  });
  return { client, storage };
}

/** A confirmed user made through the admin API, as the user-signup function does. */
export async function confirmedUser(
  t: TestStack,
  email = uniqueEmail(),
  password = GOOD_PASSWORD,
  metadata: Record<string, unknown> = {},
) {
  const { data, error } = await t.admin().auth.admin.createUser({
    email,
    password,
    email_confirm: true,
    user_metadata: metadata,
  });
  if (error || !data.user) throw error ?? new Error('no user');
  return { email, password, user: data.user };
}

/** The claims of a JWT, unverified. */
export function claimsOf(jwt: string): Record<string, any> {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
}
