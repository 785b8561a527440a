// /rest/v1's errors and headers: unknown tables (with a hint), schemas, Accept, apikey and role, the
// JSON content type and CORS, names PostgreSQL cannot take, methods PostgREST does not serve.
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rest } from '../../testing/rest-helpers.ts';
import { createItems, createWrites, dropRestTables, restTableNames, storedWrite } from '../../testing/rest-tables.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;
let db: SupabaseClient;
const { items, writes } = restTableNames();

beforeAll(async () => {
  t = await startTestStack();
  db = t.anon();
  await createItems(t, items);
  await createWrites(t, writes);
});

afterAll(async () => {
  await dropRestTables(t, items, writes);
  await t?.stop();
});

const stored = (id: number) => storedWrite(t, writes, id);

describe('headers and errors', () => {
  test('an unknown table is 404 PGRST205', async () => {
    const { data, error, status } = await db.from('no_such_table').select();
    expect(status).toBe(404);
    expect(data).toBeNull();
    expect(error).toEqual({
      code: 'PGRST205',
      details: null,
      hint: null,
      message: "Could not find the table 'public.no_such_table' in the schema cache",
    });
  });

  test('a close misspelling gets a hint', async () => {
    const { error } = await db.from(`${items}x`).select();
    expect(error?.hint).toBe(`Perhaps you meant the table 'public.${items}'`);
  });

  test('a schema other than public is 406 PGRST106', async () => {
    const { error, status } = await t.anon().schema('private').from(items).select();
    expect(status).toBe(406);
    expect(error).toEqual({
      code: 'PGRST106',
      details: null,
      hint: 'Only the following schemas are exposed: public',
      message: 'Invalid schema: private',
    });
    const write = await rest(t, writes, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Profile': 'auth' },
      body: JSON.stringify({ id: 500, name: 'x' }),
    });
    expect(write.status).toBe(406);
    expect(await stored(500)).toBeUndefined();
  });

  test('an Accept the service cannot produce is 406 PGRST107', async () => {
    const res = await rest(t, `${items}?select=id`, { headers: { Accept: 'text/csv' } });
    expect(res.status).toBe(406);
    expect(await res.json()).toEqual({
      code: 'PGRST107',
      details: null,
      hint: null,
      message: 'None of these media types are available: text/csv',
    });
  });

  test('without Authorization the apikey header decides the role', async () => {
    const res = await fetch(`${t.url}/rest/v1/${items}?select=id&id=eq.1`, { headers: { apikey: t.config.anonKey } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ id: 1 }]);
    const bad = await fetch(`${t.url}/rest/v1/${items}?select=id`, { headers: { apikey: 'not-a-jwt' } });
    expect(bad.status).toBe(401);
    expect((await bad.json()).code).toBe('PGRST301');
  });

  test('responses carry JSON content type and CORS exposure of Content-Range', async () => {
    const res = await rest(t, `${items}?select=id&id=eq.1`, { headers: { Origin: 'http://127.0.0.1:4321' } });
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('access-control-expose-headers')).toContain('Content-Range');
  });

  test('a NUL in a quoted name or alias is 400 PGRST100, refused before any SQL is built', async () => {
    const nul = '\u0000';
    // [query, the message's parse source, the NUL's column in the parsed text]
    const cases: [string, string, number][] = [
      [`select=${encodeURIComponent(`"a${nul}b":name`)}`, `failed to parse select parameter ("a${nul}b":name)`, 3],
      [`select=id&order=${encodeURIComponent(`"a${nul}b"`)}`, `failed to parse order ("a${nul}b")`, 3],
      [`select=id&${encodeURIComponent(`"a${nul}b"`)}=eq.1`, `failed to parse tree path ("a${nul}b")`, 3],
      [`select=id&or=${encodeURIComponent(`("a${nul}b".eq.1)`)}`, `failed to parse logic tree (("a${nul}b".eq.1))`, 6],
    ];
    for (const [query, source, column] of cases) {
      const res = await rest(t, `${items}?${query}`);
      expect(res.status, query).toBe(400);
      expect(await res.json(), query).toEqual({
        code: 'PGRST100',
        message: `${JSON.stringify(source)} (line 1, column ${column})`,
        details: 'unexpected "\\u0000" expecting any character but NUL',
        hint: null,
      });
    }
    // The service is fine afterwards: the next request on the same tables answers.
    const after = await rest(t, `${items}?select=id&id=eq.1`);
    expect(await after.json()).toEqual([{ id: 1 }]);
  });

  test('other methods are 405 PGRST117', async () => {
    const res = await rest(t, items, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(405);
    expect((await res.json()).code).toBe('PGRST117');
  });
});
