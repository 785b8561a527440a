// How many rows a read answers, through supabase-js and raw fetch: limit and range(), Prefer: count=exact,
// HEAD, the Range header and Content-Range (206, 416), and single() / maybeSingle() (406 PGRST116).
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rest } from '../../testing/rest-helpers.ts';
import { createItems, dropRestTables, ids, restTableNames } from '../../testing/rest-tables.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;
let db: SupabaseClient;
const { items } = restTableNames();

beforeAll(async () => {
  t = await startTestStack();
  db = t.anon();
  await createItems(t, items);
});

afterAll(async () => {
  await dropRestTables(t, items);
  await t?.stop();
});

describe('limit, ranges and counts', () => {
  test('limit and range()', async () => {
    expect(ids((await db.from(items).select('id').order('id').limit(2)).data)).toEqual([1, 2]);
    expect(ids((await db.from(items).select('id').order('id').range(2, 3)).data)).toEqual([3, 4]);
  });

  test('count=exact gives the total; a partial page is 206', async () => {
    const res = await db.from(items).select('id', { count: 'exact' }).order('id').range(0, 1);
    expect(res.status).toBe(206);
    expect(res.count).toBe(6);
    expect(ids(res.data)).toEqual([1, 2]);
    const all = await db.from(items).select('id', { count: 'exact' });
    expect(all.status).toBe(200);
    expect(all.count).toBe(6);
  });

  test('head: true counts without a body', async () => {
    const res = await db.from(items).select('*', { count: 'exact', head: true }).eq('category', 'veg');
    expect(res.status).toBe(200);
    expect(res.count).toBe(2);
    expect(res.data).toBeNull();
    const raw = await rest(t, `${items}?category=eq.veg`, { method: 'HEAD', headers: { Prefer: 'count=exact' } });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-range')).toBe('0-1/2');
    expect(await raw.text()).toBe('');
  });

  test('the Range header and Content-Range', async () => {
    let res = await rest(t, `${items}?select=id&order=id`, { headers: { Range: '1-2' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-range')).toBe('1-2/*');
    expect(await res.json()).toEqual([{ id: 2 }, { id: 3 }]);

    res = await rest(t, `${items}?select=id&order=id`, { headers: { Range: '1-2', Prefer: 'count=exact' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe('1-2/6');
    expect(res.headers.get('preference-applied')).toBe('count=exact');

    res = await rest(t, `${items}?select=id`);
    expect(res.headers.get('content-range')).toBe('0-5/*');

    res = await rest(t, `${items}?select=id&id=gt.100`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-range')).toBe('*/*');
    expect(await res.json()).toEqual([]);

    res = await rest(t, `${items}?select=id&id=gt.100`, { headers: { Prefer: 'count=exact' } });
    expect(res.headers.get('content-range')).toBe('*/0');

    res = await rest(t, `${items}?select=id&offset=10`, { headers: { Prefer: 'count=exact' } });
    expect(res.status).toBe(416);
    expect(await res.json()).toEqual({
      code: 'PGRST103',
      details: 'An offset of 10 was requested, but there are only 6 rows.',
      hint: null,
      message: 'Requested range not satisfiable',
    });

    res = await rest(t, `${items}?select=id`, { headers: { Range: '5-2' } });
    expect(res.status).toBe(416);
    expect((await res.json()).code).toBe('PGRST103');
  });
});

describe('single object', () => {
  test('single() returns the bare object', async () => {
    const { data, error, status } = await db.from(items).select('id,name').eq('id', 1).single();
    expect(error).toBeNull();
    expect(status).toBe(200);
    expect(data).toEqual({ id: 1, name: 'apple' });
  });

  test('single() with no rows or several rows is 406 PGRST116', async () => {
    const none = await db.from(items).select('id').eq('id', 999).single();
    expect(none.status).toBe(406);
    expect(none.data).toBeNull();
    expect(none.error).toEqual({
      code: 'PGRST116',
      details: 'The result contains 0 rows',
      hint: null,
      message: 'Cannot coerce the result to a single JSON object',
    });
    const many = await db.from(items).select('id').eq('category', 'fruit').single();
    expect(many.status).toBe(406);
    expect(many.error).toEqual({
      code: 'PGRST116',
      details: 'The result contains 3 rows',
      hint: null,
      message: 'Cannot coerce the result to a single JSON object',
    });
  });

  test('maybeSingle() gives null for no row', async () => {
    const { data, error } = await db.from(items).select('id').eq('id', 999).maybeSingle();
    expect(error).toBeNull();
    expect(data).toBeNull();
  });
});
