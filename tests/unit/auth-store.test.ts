import type { AuthChangeEvent, Session } from '@supabase/supabase-js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  $auth,
  loadStoredAuth,
  markClientOwnsAuth,
  readStoredSession,
  sessionStorageKey,
} from '../../src/stores/auth.ts';
import { authFromSession } from '../../src/stores/supabase.ts';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const KEY = 'sb-127-auth-token';

const storage = (value: string | null) => ({
  getItem: (key: string) => (key === KEY ? value : null),
});

const session = (expiresAt: unknown, email: unknown = 'trader@example.com', refreshToken: unknown = 'r') =>
  JSON.stringify({
    access_token: 'a',
    refresh_token: refreshToken,
    token_type: 'bearer',
    expires_in: 3600,
    expires_at: expiresAt,
    user: { email },
  });

describe('sessionStorageKey', () => {
  it.each([
    ['http://127.0.0.1:54321', 'sb-127-auth-token'],
    ['http://localhost:54321', 'sb-localhost-auth-token'],
    ['https://abc.supabase.co', 'sb-abc-auth-token'],
  ])('%s -> %s', (url, key) => {
    expect(sessionStorageKey(url)).toBe(key);
  });

  it('defaults to the local stack', () => {
    expect(sessionStorageKey()).toBe(KEY);
  });
});

describe('readStoredSession', () => {
  it.each<[string, string | null, ReturnType<typeof readStoredSession>]>([
    ['valid, unexpired', session(NOW / 1000 + 60), { status: 'signed-in', email: 'trader@example.com' }],
    ['valid, without an email', session(NOW / 1000 + 60, null), { status: 'signed-in' }],
    // An expired access token with a refresh token: undecided until the auth server answers the refresh.
    ['expired a second ago, with a refresh token', session(NOW / 1000 - 1), { status: 'loading' }],
    ['expiring exactly now, with a refresh token', session(NOW / 1000), { status: 'loading' }],
    ['expired a day ago, with a refresh token', session(NOW / 1000 - 86_400), { status: 'loading' }],
    ['expired, refresh token null', session(NOW / 1000 - 1, 'a@example.com', null), { status: 'signed-out' }],
    ['expired, refresh token empty', session(NOW / 1000 - 1, 'a@example.com', ''), { status: 'signed-out' }],
    ['expires_at not a number', session('tomorrow'), { status: 'signed-out' }],
    ['malformed JSON', '{"access_token":', { status: 'signed-out' }],
    ['JSON that is not an object', '"hello"', { status: 'signed-out' }],
    ['JSON null', 'null', { status: 'signed-out' }],
    ['missing', null, { status: 'signed-out' }],
  ])('%s', (_name, value, expected) => {
    expect(readStoredSession(storage(value), NOW)).toEqual(expected);
  });

  it('reads the key of the configured project, not another one', () => {
    const other = { getItem: (key: string) => (key === 'sb-abc-auth-token' ? session(NOW / 1000 + 60) : null) };
    expect(readStoredSession(other, NOW)).toEqual({ status: 'signed-out' });
    expect(readStoredSession(other, NOW, 'https://abc.supabase.co')).toEqual({
      status: 'signed-in',
      email: 'trader@example.com',
    });
  });

  it('treats storage that throws (blocked by the browser) as signed out', () => {
    const blocked = {
      getItem: () => {
        throw new Error('SecurityError');
      },
    };
    expect(readStoredSession(blocked, NOW)).toEqual({ status: 'signed-out' });
  });

  it('treats no storage at all as signed out', () => {
    expect(readStoredSession(undefined, NOW)).toEqual({ status: 'signed-out' });
  });
});

describe('$auth', () => {
  afterEach(() => $auth.set({ status: 'loading' }));

  it('starts loading, so no guessed state is rendered', () => {
    expect($auth.get()).toEqual({ status: 'loading' });
  });
});

const liveSession = (email?: string) =>
  ({
    access_token: 'a',
    refresh_token: 'r',
    token_type: 'bearer',
    expires_in: 3600,
    expires_at: NOW / 1000 + 3600,
    user: { id: 'u1', email, aud: 'authenticated', app_metadata: {}, user_metadata: {}, created_at: '' },
  }) as Session;

describe('authFromSession: supabase-js events to $auth', () => {
  it.each<[AuthChangeEvent, Session | null, string, string | undefined]>([
    ['INITIAL_SESSION', null, 'signed-out', undefined],
    ['INITIAL_SESSION', liveSession('a@example.com'), 'signed-in', 'a@example.com'],
    ['SIGNED_IN', liveSession('a@example.com'), 'signed-in', 'a@example.com'],
    ['TOKEN_REFRESHED', liveSession('a@example.com'), 'signed-in', 'a@example.com'],
    ['USER_UPDATED', liveSession('b@example.com'), 'signed-in', 'b@example.com'],
    ['PASSWORD_RECOVERY', liveSession('a@example.com'), 'signed-in', 'a@example.com'],
    ['SIGNED_IN', liveSession(undefined), 'signed-in', undefined],
    ['SIGNED_OUT', null, 'signed-out', undefined],
  ])('%s with %s session', (event, session, status, email) => {
    const state = authFromSession(event, session);
    expect(state.status).toBe(status);
    expect(state.email).toBe(email);
    expect(state.event).toBe(event);
    expect(state.session).toBe(session);
    expect(state.user).toBe(session?.user ?? null);
    if (!email) expect('email' in state).toBe(false);
  });

  it('a sign-in then a sign-out leave no email behind', () => {
    $auth.set(authFromSession('SIGNED_IN', liveSession('a@example.com')));
    expect($auth.get()).toMatchObject({ status: 'signed-in', email: 'a@example.com' });
    $auth.set(authFromSession('SIGNED_OUT', null));
    expect($auth.get().status).toBe('signed-out');
    expect($auth.get().email).toBeUndefined();
    $auth.set({ status: 'loading' });
  });

  it('once supabase-js owns $auth, reading storage does not overwrite it', () => {
    const state = authFromSession('PASSWORD_RECOVERY', liveSession('a@example.com'));
    $auth.set(state);
    markClientOwnsAuth();
    loadStoredAuth(async () => {});
    expect($auth.get()).toBe(state);
    $auth.set({ status: 'loading' });
  });
});
