// A new member signed in, as the specs of the signed-in pages need one: created confirmed through the admin API,
// signed in with a password, and the session stored where the site's browser client reads it.
import { expect, type Page } from '@playwright/test';
import { DEMO_ANON_KEY, DEMO_SERVICE_ROLE_KEY } from 'local-supabase';
import { API } from './env.ts';

/** Where supabase-js keeps the session for the e2e stack's URL (127.0.0.1). */
export const SESSION_KEY = 'sb-127-auth-token';
export const MEMBER_PASSWORD = 'Str0ng!Passw0rd';
const service = { apikey: DEMO_SERVICE_ROLE_KEY, Authorization: `Bearer ${DEMO_SERVICE_ROLE_KEY}` };

/** Creates `email` as a confirmed member and leaves `page` signed in as them (on /about-us); the session's JSON. */
export async function signInNewMember(page: Page, email: string): Promise<string> {
  const created = await fetch(`${API}/auth/v1/admin/users`, {
    method: 'POST',
    headers: { ...service, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: MEMBER_PASSWORD, email_confirm: true }),
  });
  expect(created.status).toBe(200);
  const grant = await fetch(`${API}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: DEMO_ANON_KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: MEMBER_PASSWORD }),
  });
  expect(grant.status).toBe(200);
  const session = await grant.text();
  await page.goto('/about-us');
  await page.evaluate(([key, value]) => localStorage.setItem(key, value), [SESSION_KEY, session]);
  return session;
}
