// Members for the specs, made as the stack makes them: created confirmed through the auth admin API, signed in with
// the password grant, and the session stored where the site's browser client (supabase-js) reads it.
import { expect, type Page } from '@playwright/test';
import { DEMO_ANON_KEY, DEMO_SERVICE_ROLE_KEY } from 'local-supabase';
import { API } from './env.ts';

/** Where supabase-js keeps the session for the e2e stack's URL (127.0.0.1). */
export const SESSION_KEY = 'sb-127-auth-token';
export const MEMBER_PASSWORD = 'Str0ng!Passw0rd';
const service = { apikey: DEMO_SERVICE_ROLE_KEY, Authorization: `Bearer ${DEMO_SERVICE_ROLE_KEY}` };

export interface Member {
  id: string;
  email: string;
  password: string;
}

/** The password grant's answer, as supabase-js stores it (only the fields the specs read are typed). */
export interface Session {
  access_token: string;
  refresh_token: string;
  expires_at: number;
  user: { id: string; email: string };
}

export interface NewMember {
  /** The address; a new one each call when none is given. */
  email?: string;
  /** The start of that new address (`member` by default), to tell the specs' members apart in the stack. */
  prefix?: string;
  /** MEMBER_PASSWORD unless given. */
  password?: string;
  /** Sent as user_metadata, which the profile row takes its names from; none unless given. */
  firstName?: string;
  lastName?: string;
}

let counter = 0;
/** A confirmed member made with the admin API, as support staff would. */
export async function createMember(options: NewMember = {}): Promise<Member> {
  const { prefix = 'member', password = MEMBER_PASSWORD, firstName, lastName } = options;
  const email = options.email ?? `${prefix}-${Date.now()}-${process.pid}-${counter++}@example.com`;
  const named = firstName !== undefined || lastName !== undefined;
  const response = await fetch(`${API}/auth/v1/admin/users`, {
    method: 'POST',
    headers: { ...service, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      email,
      password,
      email_confirm: true,
      ...(named ? { user_metadata: { first_name: firstName, last_name: lastName } } : {}),
    }),
  });
  expect(response.status).toBe(200);
  const user = (await response.json()) as { id: string };
  return { id: user.id, email, password };
}

/** The auth service's answer to a password sign-in, whatever it is (some specs check a refusal). */
export async function passwordGrant(email: string, password: string): Promise<Response> {
  return fetch(`${API}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: DEMO_ANON_KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
}

/** A new session (aal1) of the password grant, which must succeed. */
export async function passwordSession(email: string, password: string): Promise<Session> {
  const response = await passwordGrant(email, password);
  expect(response.status).toBe(200);
  return (await response.json()) as Session;
}

/** Stores `session` as supabase-js does, on this site's origin: a light page (/about-us) is loaded first. */
export async function storeSession(page: Page, session: Session): Promise<void> {
  await page.goto('/about-us');
  await page.evaluate(([key, value]) => localStorage.setItem(key, value), [SESSION_KEY, JSON.stringify(session)]);
}

/** Leaves `page` signed in as `member` (on /about-us): a password grant, stored as supabase-js does. */
export async function signIn(page: Page, member: Pick<Member, 'email' | 'password'>): Promise<Session> {
  const session = await passwordSession(member.email, member.password);
  await storeSession(page, session);
  return session;
}

/** Creates `email` as a confirmed member and leaves `page` signed in as them (on /about-us). */
export async function signInNewMember(page: Page, email: string): Promise<Member> {
  const member = await createMember({ email });
  await signIn(page, member);
  return member;
}

/** The address of the session supabase-js keeps in this page's storage, or null. */
export function storedEmail(page: Page): Promise<string | null> {
  return page.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? 'null')?.user?.email ?? null, SESSION_KEY);
}
