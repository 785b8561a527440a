// The Notification Preferences store (src/stores/alert-preferences.ts) over a real postgrest-js client whose HTTP is
// answered here: what it reads and sends (table, filters, upsert on user_id), and what the panel then shows.
import { PostgrestClient } from '@supabase/postgrest-js';
import { describe, expect, it } from 'vitest';
import {
  type AlertPreferences,
  checkAlertPreferences,
  createAlertPreferences,
  DEFAULT_ALERT_PREFERENCES,
  preferencesOf,
} from '../../src/stores/alert-preferences.ts';
import type { Database } from '../../supabase/database.types.ts';

const USER = '6f1c2a4e-0000-4000-8000-000000000001';

interface Seen {
  method: string;
  url: string;
  prefer: string | null;
  body: unknown;
}

/** A postgrest-js client whose every request is recorded and answered by `answer`. */
function client(answer: (req: Seen) => { status: number; body: unknown }) {
  const seen: Seen[] = [];
  const rest = new PostgrestClient<Database>('http://rest.test/rest/v1', {
    fetch: async (input, init) => {
      const url = new URL(String(input));
      const req: Seen = {
        method: init?.method ?? 'GET',
        url: decodeURIComponent(url.pathname + url.search),
        prefer: new Headers(init?.headers).get('prefer'),
        body: init?.body ? JSON.parse(String(init.body)) : undefined,
      };
      seen.push(req);
      const answered = answer(req);
      const { status } = answered;
      // One row asked for as an object (`.single()`): PostgREST answers the object, not an array.
      const single = new Headers(init?.headers).get('accept')?.includes('vnd.pgrst.object');
      const body = single && Array.isArray(answered.body) ? answered.body[0] : answered.body;
      return new Response(body === undefined ? null : JSON.stringify(body), {
        status,
        headers: { 'content-type': 'application/json' },
      });
    },
  });
  return { from: rest.from.bind(rest), seen };
}

const row = (over: Partial<{ email_enabled: boolean; tiers: string[]; events: string[] }> = {}) => ({
  email_enabled: true,
  tiers: ['growth'],
  events: ['new_signal', 'sl_hit'],
  ...over,
});

describe('preferencesOf: what a stored row (or none) stands for', () => {
  it.each<[string, Parameters<typeof preferencesOf>[0], AlertPreferences]>([
    ['no row: alerts off, every tier and event ticked', null, DEFAULT_ALERT_PREFERENCES],
    [
      'a row as the database sorts it, shown in the panel’s order',
      { email_enabled: true, tiers: ['momentum', 'foundation'], events: ['sl_hit', 'new_signal', 'tp_hit'] },
      { emailEnabled: true, tiers: ['foundation', 'momentum'], events: ['new_signal', 'tp_hit', 'sl_hit'] },
    ],
    [
      'unknown values are left out',
      { email_enabled: false, tiers: ['growth', 'platinum'], events: ['stop_moved'] },
      { emailEnabled: false, tiers: ['growth'], events: [] },
    ],
  ])('%s', (_name, input, expected) => {
    expect(preferencesOf(input)).toEqual(expected);
  });

  it('the defaults are not shared: changing one result leaves the next alone', () => {
    preferencesOf(null).tiers.pop();
    expect(preferencesOf(null).tiers).toEqual(['foundation', 'growth', 'momentum']);
  });
});

describe('checkAlertPreferences', () => {
  it.each<[string, AlertPreferences, ReturnType<typeof checkAlertPreferences>]>([
    ['on, a tier and an event', { emailEnabled: true, tiers: ['growth'], events: ['tp_hit'] }, 'ok'],
    ['on, no tier', { emailEnabled: true, tiers: [], events: ['tp_hit'] }, 'needTier'],
    ['on, no event', { emailEnabled: true, tiers: ['growth'], events: [] }, 'needEvent'],
    ['on, neither: the tier is asked first', { emailEnabled: true, tiers: [], events: [] }, 'needTier'],
    ['off, nothing chosen', { emailEnabled: false, tiers: [], events: [] }, 'ok'],
  ])('%s -> %s', (_name, prefs, expected) => {
    expect(checkAlertPreferences(prefs)).toBe(expected);
  });
});

describe('the store', () => {
  it('load with no row: the defaults, marked as not stored; it reads the member’s row only', async () => {
    const api = client(() => ({ status: 200, body: [] }));
    const store = createAlertPreferences(api);
    await store.load(USER);
    expect(store.$state.get()).toEqual({ status: 'loaded', prefs: DEFAULT_ALERT_PREFERENCES, stored: false });
    expect(api.seen).toEqual([
      expect.objectContaining({
        method: 'GET',
        url: `/rest/v1/alert_preferences?select=email_enabled,tiers,events&user_id=eq.${USER}`,
      }),
    ]);
  });

  it('load with a row: what it says', async () => {
    const api = client(() => ({ status: 200, body: [row()] }));
    const store = createAlertPreferences(api);
    await store.load(USER);
    expect(store.$state.get()).toEqual({
      status: 'loaded',
      prefs: { emailEnabled: true, tiers: ['growth'], events: ['new_signal', 'sl_hit'] },
      stored: true,
    });
  });

  it('a failed load says so and keeps what was shown', async () => {
    let fail = false;
    const api = client(() =>
      fail ? { status: 401, body: { message: 'JWT expired' } } : { status: 200, body: [row()] },
    );
    const store = createAlertPreferences(api);
    await store.load(USER);
    fail = true;
    await store.load(USER);
    expect(store.$state.get()).toEqual({
      status: 'error',
      prefs: { emailEnabled: true, tiers: ['growth'], events: ['new_signal', 'sl_hit'] },
    });
  });

  it('save upserts the member’s row on user_id and shows what the database stored', async () => {
    const api = client((req) =>
      req.method === 'POST'
        ? { status: 201, body: [row({ tiers: ['foundation', 'momentum'], events: ['tp_hit'] })] }
        : { status: 200, body: [] },
    );
    const store = createAlertPreferences(api);
    await store.load(USER);
    const saving: boolean[] = [];
    store.$saving.listen((v) => saving.push(v));
    const outcome = await store.save(USER, {
      emailEnabled: true,
      tiers: ['momentum', 'foundation'],
      events: ['tp_hit'],
    });
    expect(outcome).toBe('saved');
    expect(saving).toEqual([true, false]);
    const post = api.seen.at(-1) as Seen;
    expect(post.method).toBe('POST');
    expect(post.url).toBe('/rest/v1/alert_preferences?on_conflict=user_id&select=email_enabled,tiers,events');
    expect(post.prefer).toContain('resolution=merge-duplicates');
    expect(post.body).toEqual({
      user_id: USER,
      email_enabled: true,
      tiers: ['foundation', 'momentum'],
      events: ['tp_hit'],
    });
    expect(store.$state.get()).toEqual({
      status: 'loaded',
      prefs: { emailEnabled: true, tiers: ['foundation', 'momentum'], events: ['tp_hit'] },
      stored: true,
    });
  });

  it.each<[string, AlertPreferences, string]>([
    ['no tier', { emailEnabled: true, tiers: [], events: ['tp_hit'] }, 'needTier'],
    ['no event', { emailEnabled: true, tiers: ['growth'], events: [] }, 'needEvent'],
  ])('alerts on with %s: nothing is sent, the answer says what is missing', async (_name, prefs, expected) => {
    const api = client(() => ({ status: 200, body: [] }));
    const store = createAlertPreferences(api);
    expect(await store.save(USER, prefs)).toBe(expected);
    expect(api.seen).toEqual([]);
    expect(store.$saving.get()).toBe(false);
  });

  it('a refused save (the database’s 42501 at aal1, a check) is failed and the shown values stay', async () => {
    const api = client((req) =>
      req.method === 'POST'
        ? { status: 403, body: { code: '42501', message: 'new row violates row-level security policy' } }
        : { status: 200, body: [row()] },
    );
    const store = createAlertPreferences(api);
    await store.load(USER);
    const before = store.$state.get();
    expect(await store.save(USER, { emailEnabled: false, tiers: ['growth'], events: ['tp_hit'] })).toBe('failed');
    expect(store.$state.get()).toEqual(before);
    expect(store.$saving.get()).toBe(false);
  });

  it('a save whose request throws (no network) is failed, not thrown', async () => {
    const rest = new PostgrestClient<Database>('http://rest.test/rest/v1', {
      fetch: async () => {
        throw new TypeError('Failed to fetch');
      },
    });
    const store = createAlertPreferences({ from: rest.from.bind(rest) });
    expect(await store.save(USER, DEFAULT_ALERT_PREFERENCES)).toBe('failed');
  });
});
