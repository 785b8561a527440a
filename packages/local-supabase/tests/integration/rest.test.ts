// PostgREST behaviour of /rest/v1 through supabase-js (raw fetch only where supabase-js hides the wire).
// Two scratch tables are created directly in the database for this file; names are unique per run so
// files can share one PostgreSQL database.
import { randomUUID } from 'node:crypto';
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rest } from '../../testing/rest-helpers.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;
let db: SupabaseClient;
const tag = randomUUID().slice(0, 8);
const items = `rest_items_${tag}`;
const writes = `rest_writes_${tag}`;

const ids = (rows: unknown) => (rows as { id: number }[] | null)?.map((r) => r.id);

beforeAll(async () => {
  t = await startTestStack();
  db = t.anon();
  await t.stack.ctx.db.exec(`
    create table public.${items} (
      id int primary key,
      name text not null,
      category text,
      price numeric,
      qty int,
      tags text[],
      meta jsonb,
      active boolean,
      note text
    );
    insert into public.${items} values
      (1, 'apple', 'fruit', 1.50, 10, '{red,sweet}', '{"color":"red","size":3}', true, null),
      (2, 'banana', 'fruit', 0.25, 0, '{yellow}', '{"color":"yellow","size":5}', false, 'ripe'),
      (3, 'carrot', 'veg', 0.80, null, '{orange}', '{"color":"orange"}', null, 'crunchy, fresh'),
      (4, 'Dill (fresh)', 'herb', null, 5, '{}', null, true, 'a "quoted" note'),
      (5, 'eggplant', 'veg', 2.00, 3, '{purple}', '{"color":"purple"}', false, null),
      (6, 'fig, dried', 'fruit', 3.10, 7, '{sweet}', '{"color":"brown"}', true, '100% pure');
    grant select on public.${items} to anon;

    create table public.${writes} (
      id int primary key,
      code text unique,
      name text not null,
      qty int default 0,
      created_at timestamptz not null default now()
    );
    grant select, insert, update, delete on public.${writes} to anon;
  `);
});

afterAll(async () => {
  await t?.stack.ctx.db.exec(`drop table if exists public.${items}; drop table if exists public.${writes};`);
  await t?.stop();
});

async function stored(id: number) {
  const rows = await t.stack.ctx.db.query<{ id: number; code: string | null; name: string; qty: number | null }>(
    `select id, code, name, qty from public.${writes} where id = $1`,
    [id],
  );
  return rows[0];
}

describe('select', () => {
  test('a column list returns exactly those columns', async () => {
    const { data, error, status } = await db.from(items).select('id,name').order('id');
    expect(error).toBeNull();
    expect(status).toBe(200);
    expect(data).toEqual([
      { id: 1, name: 'apple' },
      { id: 2, name: 'banana' },
      { id: 3, name: 'carrot' },
      { id: 4, name: 'Dill (fresh)' },
      { id: 5, name: 'eggplant' },
      { id: 6, name: 'fig, dried' },
    ]);
  });

  test('* returns every column with JSON types (numeric, arrays, jsonb, booleans, nulls)', async () => {
    const { data } = await db.from(items).select('*').eq('id', 1);
    expect(data).toEqual([
      {
        id: 1,
        name: 'apple',
        category: 'fruit',
        price: 1.5,
        qty: 10,
        tags: ['red', 'sweet'],
        meta: { color: 'red', size: 3 },
        active: true,
        note: null,
      },
    ]);
  });

  test('renaming, casts and JSON paths', async () => {
    const { data, error } = await db
      .from(items)
      .select('label:name, price::text, color:meta->>color, meta->size')
      .eq('id', 2);
    expect(error).toBeNull();
    expect(data).toEqual([{ label: 'banana', price: '0.25', color: 'yellow', size: 5 }]);
  });

  test('an unknown column is 42703 as Postgres words it', async () => {
    const { data, error, status } = await db.from(items).select('id,nope');
    expect(status).toBe(400);
    expect(data).toBeNull();
    expect(error).toEqual({ code: '42703', details: null, hint: null, message: `column ${items}.nope does not exist` });
  });

  test('embedding a relation that does not exist is PGRST200', async () => {
    const { error, status } = await db.from(items).select('id, owner(*)');
    expect(status).toBe(400);
    expect(error?.code).toBe('PGRST200');
    expect(error?.message).toBe(`Could not find a relationship between '${items}' and 'owner' in the schema cache`);
  });

  test('stripNulls() drops null members', async () => {
    const { data } = await db.from(items).select('id,note,price').in('id', [1, 4]).order('id').stripNulls();
    expect(data).toEqual([
      { id: 1, price: 1.5 },
      { id: 4, note: 'a "quoted" note' },
    ]);
  });
});

describe('filters', () => {
  test('comparison operators', async () => {
    expect(ids((await db.from(items).select('id').gt('qty', 3).order('id')).data)).toEqual([1, 4, 6]);
    expect(ids((await db.from(items).select('id').gte('qty', 3).order('id')).data)).toEqual([1, 4, 5, 6]);
    expect(ids((await db.from(items).select('id').lt('qty', 5).order('id')).data)).toEqual([2, 5]);
    expect(ids((await db.from(items).select('id').lte('qty', 5).order('id')).data)).toEqual([2, 4, 5]);
    expect(ids((await db.from(items).select('id').neq('category', 'fruit').order('id')).data)).toEqual([3, 4, 5]);
    expect(ids((await db.from(items).select('id').eq('name', 'Dill (fresh)')).data)).toEqual([4]);
    expect(ids((await db.from(items).select('id').gt('price', 1.5).order('id')).data)).toEqual([5, 6]);
  });

  test('in, with numbers and with quoted values holding commas; an empty list matches nothing', async () => {
    expect(ids((await db.from(items).select('id').in('id', [1, 3, 5]).order('id')).data)).toEqual([1, 3, 5]);
    expect(ids((await db.from(items).select('id').in('name', ['fig, dried', 'carrot']).order('id')).data)).toEqual([
      3, 6,
    ]);
    expect(ids((await db.from(items).select('id').not('id', 'in', '(1,2)').order('id')).data)).toEqual([3, 4, 5, 6]);
    const res = await rest(t, `${items}?select=id&id=in.()`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
  });

  test('is null / true / false / unknown, and not.is', async () => {
    expect(ids((await db.from(items).select('id').is('price', null)).data)).toEqual([4]);
    expect(ids((await db.from(items).select('id').is('active', true).order('id')).data)).toEqual([1, 4, 6]);
    expect(ids((await db.from(items).select('id').is('active', false).order('id')).data)).toEqual([2, 5]);
    expect(ids((await db.from(items).select('id').not('active', 'is', null).order('id')).data)).toEqual([
      1, 2, 4, 5, 6,
    ]);
    const res = await rest(t, `${items}?select=id&active=is.unknown`);
    expect(await res.json()).toEqual([{ id: 3 }]);
  });

  test('like and ilike take * as the wildcard, as PostgREST does', async () => {
    expect(ids((await db.from(items).select('id').like('name', '*an*').order('id')).data)).toEqual([2, 5]);
    expect(ids((await db.from(items).select('id').like('name', 'D%')).data)).toEqual([4]);
    expect(ids((await db.from(items).select('id').like('name', 'd*')).data)).toEqual([]);
    expect(ids((await db.from(items).select('id').ilike('name', 'd*')).data)).toEqual([4]);
    expect(ids((await db.from(items).select('id').like('note', '*"quoted"*')).data)).toEqual([4]);
    expect(ids((await db.from(items).select('id').likeAnyOf('name', ['a*', 'e*']).order('id')).data)).toEqual([1, 5]);
  });

  test('not. prefix', async () => {
    expect(ids((await db.from(items).select('id').not('category', 'eq', 'fruit').order('id')).data)).toEqual([3, 4, 5]);
    expect(ids((await db.from(items).select('id').not('name', 'ilike', '*e*').order('id')).data)).toEqual([2, 3]);
  });

  test('or, with nested and, and quoted values', async () => {
    expect(ids((await db.from(items).select('id').or('id.eq.1,name.eq.carrot').order('id')).data)).toEqual([1, 3]);
    expect(
      ids((await db.from(items).select('id').or('qty.gt.6,and(category.eq.veg,price.lt.1)').order('id')).data),
    ).toEqual([1, 3, 6]);
    expect(ids((await db.from(items).select('id').or('name.eq."fig, dried",id.eq.2').order('id')).data)).toEqual([
      2, 6,
    ]);
    expect(ids((await db.from(items).select('id').or('id.in.(1,2),note.eq.ripe').eq('active', true)).data)).toEqual([
      1,
    ]);
  });

  test('array and full-text operators', async () => {
    expect(ids((await db.from(items).select('id').contains('tags', ['sweet']).order('id')).data)).toEqual([1, 6]);
    expect(ids((await db.from(items).select('id').overlaps('tags', ['red', 'purple']).order('id')).data)).toEqual([
      1, 5,
    ]);
    expect(
      ids((await db.from(items).select('id').containedBy('tags', ['red', 'sweet', 'x']).order('id')).data),
    ).toEqual([1, 4, 6]);
    const fts = await db.from(items).select('id').textSearch('note', 'crunchy', { config: 'simple', type: 'plain' });
    expect(ids(fts.data)).toEqual([3]);
  });

  test('a filter on a JSON path', async () => {
    expect(ids((await db.from(items).select('id').eq('meta->>color', 'purple')).data)).toEqual([5]);
  });

  test('a value of the wrong type is 22P02, an unknown column 42703, an unknown operator PGRST100', async () => {
    const bad = await db.from(items).select('id').eq('id', 'abc');
    expect(bad.status).toBe(400);
    expect(bad.error).toEqual({
      code: '22P02',
      details: null,
      hint: null,
      message: 'invalid input syntax for type integer: "abc"',
    });
    const unknown = await db.from(items).select('id').eq('nope', 1);
    expect(unknown.status).toBe(400);
    expect(unknown.error?.code).toBe('42703');
    const op = await db.from(items).select('id').not('id', 'foo', '1');
    expect(op.status).toBe(400);
    expect(op.error).toEqual({
      code: 'PGRST100',
      details: 'unknown single value operator foo',
      hint: null,
      message: '"failed to parse filter (not.foo.1)" (line 1, column 9)',
    });
  });

  test('a query parameter without a known operator is not a filter (PostgREST reads it as an RPC argument)', async () => {
    const res = await rest(t, `${items}?select=id&name=apple&qty=foo.1&order=id`);
    expect(ids(await res.json())).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

describe('order, limit, ranges and counts', () => {
  test('order with direction and nulls placement, on several columns', async () => {
    const desc = await db.from(items).select('id').order('price', { ascending: false, nullsFirst: true });
    expect(ids(desc.data)).toEqual([4, 6, 5, 1, 3, 2]);
    const asc = await db.from(items).select('id').order('price', { ascending: true, nullsFirst: false });
    expect(ids(asc.data)).toEqual([2, 3, 1, 5, 6, 4]);
    const multi = await db.from(items).select('id').order('category').order('id', { ascending: false });
    expect(ids(multi.data)).toEqual([6, 2, 1, 4, 5, 3]);
    const bad = await db.from(items).select('id').order('nope');
    expect(bad.status).toBe(400);
    expect(bad.error?.code).toBe('42703');
  });

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

describe('insert', () => {
  test('an object: 201, no body by default, row stored with defaults', async () => {
    const res = await db.from(writes).insert({ id: 1, code: 'w1', name: 'one' });
    expect(res.error).toBeNull();
    expect(res.status).toBe(201);
    expect(res.data).toBeNull();
    expect(await stored(1)).toEqual({ id: 1, code: 'w1', name: 'one', qty: 0 });
  });

  test('an array with select(): the rows back; a key missing from one object is null there', async () => {
    const res = await db
      .from(writes)
      .insert([
        { id: 2, code: 'w2', name: 'two', qty: 5 },
        { id: 3, code: 'w3', name: 'three' },
      ])
      .select('id,code,name,qty');
    expect(res.error).toBeNull();
    expect(res.status).toBe(201);
    expect(res.data).toEqual([
      { id: 2, code: 'w2', name: 'two', qty: 5 },
      { id: 3, code: 'w3', name: 'three', qty: null },
    ]);
  });

  test('select().single() returns the new row as an object', async () => {
    const res = await db.from(writes).insert({ id: 4, code: 'w4', name: 'four' }).select().single();
    expect(res.status).toBe(201);
    expect(res.data).toMatchObject({ id: 4, code: 'w4', name: 'four', qty: 0 });
    expect(typeof (res.data as { created_at: string }).created_at).toBe('string');
  });

  test('a duplicate key is 409 23505 and stores nothing', async () => {
    const res = await db.from(writes).insert({ id: 1, code: 'other', name: 'dup' });
    expect(res.status).toBe(409);
    expect(res.error).toEqual({
      code: '23505',
      details: 'Key (id)=(1) already exists.',
      hint: null,
      message: `duplicate key value violates unique constraint "${writes}_pkey"`,
    });
    expect(await stored(1)).toEqual({ id: 1, code: 'w1', name: 'one', qty: 0 });
  });

  test('a missing NOT NULL value is 400 23502', async () => {
    const res = await db.from(writes).insert({ id: 9, code: 'w9' });
    expect(res.status).toBe(400);
    expect(res.error?.code).toBe('23502');
    expect(res.error?.message).toBe(`null value in column "name" of relation "${writes}" violates not-null constraint`);
    expect(await stored(9)).toBeUndefined();
  });

  test('an unknown column is 400 PGRST204', async () => {
    const res = await db.from(writes).insert({ id: 10, name: 'x', nope: 1 });
    expect(res.status).toBe(400);
    expect(res.error).toEqual({
      code: 'PGRST204',
      details: null,
      hint: null,
      message: `Could not find the 'nope' column of '${writes}' in the schema cache`,
    });
    expect(await stored(10)).toBeUndefined();
  });

  test('return=headers-only answers 201 with a Location', async () => {
    const res = await rest(t, writes, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Prefer: 'return=headers-only' },
      body: JSON.stringify({ id: 30, code: 'w30', name: 'thirty' }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/${writes}?id=eq.30`);
    expect(await res.text()).toBe('');
  });

  test('bad bodies: invalid JSON, mismatched keys, wrong Content-Type', async () => {
    let res = await rest(t, writes, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"id": 1,',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: 'PGRST102', details: null, hint: null, message: 'Empty or invalid json' });

    res = await rest(t, writes, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify([
        { id: 40, name: 'a' },
        { id: 41, code: 'b' },
      ]),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      code: 'PGRST102',
      details: null,
      hint: null,
      message: 'All object keys must match',
    });

    res = await rest(t, writes, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: '{"id":42,"name":"x"}',
    });
    expect(res.status).toBe(415);
    expect((await res.json()).code).toBe('PGRST107');
    for (const id of [40, 41, 42]) expect(await stored(id)).toBeUndefined();
  });
});

describe('missing=default and limited writes', () => {
  test('insert with defaultToNull: false gives a missing key its column default', async () => {
    const res = await db
      .from(writes)
      .insert(
        [
          { id: 50, code: 'w50', name: 'fifty', qty: 4 },
          { id: 51, code: 'w51', name: 'fifty-one' },
        ],
        { defaultToNull: false },
      )
      .select('id,qty');
    expect(res.error).toBeNull();
    expect(res.status).toBe(201);
    expect([...(res.data ?? [])].sort((a, b) => a.id - b.id)).toEqual([
      { id: 50, qty: 4 },
      { id: 51, qty: 0 },
    ]);
    expect(await stored(51)).toEqual({ id: 51, code: 'w51', name: 'fifty-one', qty: 0 });
  });

  test('missing=default evaluates defaults per row over the whole column list, rows back in the order sent', async () => {
    await t.stack.ctx.db.exec(`
      create table public.defaults_per_row (
        n serial primary key,
        token uuid not null default gen_random_uuid(),
        label text not null,
        note text default 'none'
      );
      grant select, insert on public.defaults_per_row to anon;
      grant usage on sequence public.defaults_per_row_n_seq to anon;`);
    const token = '00000000-0000-4000-8000-000000000001';
    const res = await db
      .from('defaults_per_row')
      .insert([{ label: 'c' }, { label: 'a', token, note: null }, { label: 'b', note: 'given' }], {
        defaultToNull: false,
      })
      .select('n,token,label,note');
    expect(res.error).toBeNull();
    const rows = res.data ?? [];
    expect(rows.map((r) => r.label)).toEqual(['c', 'a', 'b']);
    expect(rows.map((r) => r.n)).toEqual([1, 2, 3]);
    expect(rows[1].token).toBe(token);
    expect(new Set(rows.map((r) => r.token)).size).toBe(3);
    // A key sent as null stays null; only a missing key takes the default.
    expect(rows.map((r) => r.note)).toEqual(['none', null, 'given']);
  });

  test('bulk insert and upsert with column defaults: each row takes every listed default, as PostgREST does', async () => {
    await t.stack.ctx.db.exec(`
      create table public.defaults_channels (
        id bigint generated by default as identity primary key,
        data jsonb default null,
        slug text
      );
      insert into public.defaults_channels (slug) values ('one'), ('two');
      grant select, insert, update on public.defaults_channels to anon;`);
    // The identity sequence stands at 2. PostgREST evaluates the id default for both rows, so the row that
    // sends its own id still advances the sequence: the second row gets 4, not 3.
    const insert = await db
      .from('defaults_channels')
      .insert([{ id: 100 }, { slug: 'test-slug' }], { defaultToNull: false })
      .select();
    expect(insert.error).toBeNull();
    expect(insert.status).toBe(201);
    expect(insert.data).toEqual([
      { id: 100, data: null, slug: null },
      { id: 4, data: null, slug: 'test-slug' },
    ]);
    // The same for an upsert: row 1 is updated (its slug, not sent, becomes null), the new row gets 6.
    const upsert = await db
      .from('defaults_channels')
      .upsert([{ id: 1 }, { slug: 'test-slug' }], { defaultToNull: false })
      .select();
    expect(upsert.error).toBeNull();
    expect(upsert.status).toBe(201);
    expect(upsert.data).toEqual([
      { id: 1, data: null, slug: null },
      { id: 6, data: null, slug: 'test-slug' },
    ]);
  });

  test('missing=default fills an identity column GENERATED BY DEFAULT and a domain default, as PostgREST does', async () => {
    await t.stack.ctx.db.exec(`
      create domain public.grade as text default 'ungraded';
      create table public.defaults_identity (
        id bigint generated by default as identity primary key,
        label text not null,
        grade public.grade
      );
      grant select, insert on public.defaults_identity to anon;`);
    const res = await db
      .from('defaults_identity')
      .insert([{ label: 'first' }, { label: 'second', id: 40, grade: 'A' }, { label: 'third' }], {
        defaultToNull: false,
      })
      .select('id,label,grade');
    expect(res.error).toBeNull();
    // The second row sends its id, yet the sequence advances for it too: the third row gets 3.
    expect(res.data).toEqual([
      { id: 1, label: 'first', grade: 'ungraded' },
      { id: 40, label: 'second', grade: 'A' },
      { id: 3, label: 'third', grade: 'ungraded' },
    ]);
  });

  test('limit and order bound an update and a delete', async () => {
    await db.from(writes).insert([60, 61, 62, 63].map((id) => ({ id, code: `b${id}`, name: 'batch', qty: 0 })));
    const upd = await db.from(writes).update({ qty: 1 }).eq('name', 'batch').order('id', { ascending: false }).limit(1);
    expect(upd.status).toBe(204);
    expect((await stored(63)).qty).toBe(1);
    expect((await stored(62)).qty).toBe(0);

    const del = await db.from(writes).delete().eq('name', 'batch').order('id').limit(2).select('id');
    expect(del.status).toBe(200);
    expect(ids(del.data)?.sort((x, y) => x - y)).toEqual([60, 61]);
    expect(await stored(60)).toBeUndefined();
    expect(await stored(61)).toBeUndefined();
    expect(await stored(62)).toBeDefined();
    await t.stack.ctx.db.exec(`delete from public.${writes} where id in (62, 63)`);
  });
});

describe('update', () => {
  test('with a filter: 204, no body, the row changed', async () => {
    const res = await db.from(writes).update({ name: 'uno' }).eq('id', 1);
    expect(res.error).toBeNull();
    expect(res.status).toBe(204);
    expect(res.data).toBeNull();
    expect((await stored(1)).name).toBe('uno');
    expect((await stored(2)).name).toBe('two');
  });

  test('select() returns the changed rows; count=exact counts them', async () => {
    const res = await db.from(writes).update({ qty: 9 }).in('id', [2, 3]).select('id,qty');
    expect(res.status).toBe(200);
    expect([...(res.data ?? [])].sort((a, b) => a.id - b.id)).toEqual([
      { id: 2, qty: 9 },
      { id: 3, qty: 9 },
    ]);
    const counted = await db.from(writes).update({ qty: 8 }, { count: 'exact' }).in('id', [2, 3]);
    expect(counted.status).toBe(204);
    expect(counted.count).toBe(2);
  });

  test('no matching row is still 204', async () => {
    const res = await db.from(writes).update({ name: 'ghost' }).eq('id', 12345);
    expect(res.status).toBe(204);
    expect(res.error).toBeNull();
  });

  test('without a filter it is refused (21000) and nothing changes', async () => {
    const res = await db.from(writes).update({ name: 'everything' });
    expect(res.status).toBe(400);
    expect(res.error).toEqual({ code: '21000', details: null, hint: null, message: 'UPDATE requires a WHERE clause' });
    expect((await stored(1)).name).toBe('uno');
  });

  test('single() over two rows is 406 and the update is rolled back', async () => {
    const res = await db.from(writes).update({ name: 'same' }).in('id', [2, 3]).select().single();
    expect(res.status).toBe(406);
    expect(res.error?.details).toBe('The result contains 2 rows');
    expect((await stored(2)).name).toBe('two');
    expect((await stored(3)).name).toBe('three');
  });

  test('max-affected with handling=strict refuses a larger update and rolls it back', async () => {
    const res = await rest(t, `${writes}?id=in.(2,3)`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json', Prefer: 'handling=strict, max-affected=1' },
      body: JSON.stringify({ qty: 100 }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      code: 'PGRST124',
      details: 'The query affects 2 rows',
      hint: null,
      message: 'Query result exceeds max-affected preference constraint',
    });
    expect((await stored(2)).qty).toBe(8);
  });
});

describe('upsert', () => {
  test('merge-duplicates updates existing rows and inserts new ones', async () => {
    const res = await db
      .from(writes)
      .upsert([
        { id: 1, code: 'w1', name: 'merged' },
        { id: 20, code: 'w20', name: 'twenty' },
      ])
      .select('id,name');
    expect(res.error).toBeNull();
    expect(res.status).toBe(201);
    expect([...(res.data ?? [])].sort((a, b) => a.id - b.id)).toEqual([
      { id: 1, name: 'merged' },
      { id: 20, name: 'twenty' },
    ]);
    expect((await stored(1)).name).toBe('merged');
    expect(await stored(20)).toEqual({ id: 20, code: 'w20', name: 'twenty', qty: 0 });
  });

  test('an upsert that only updates answers 200 with the rows as stored; 201 needs an inserted row', async () => {
    const res = await db.from(writes).upsert({ id: 1, code: 'w1', name: 'merged again' }).select();
    expect(res.error).toBeNull();
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject([await stored(1)]);
    // The whole row as stored, and nothing the upsert used to tell inserts from updates.
    const columns = await t.stack.ctx.db.query<{ column_name: string }>(
      `select column_name from information_schema.columns where table_name = $1 order by ordinal_position`,
      [writes],
    );
    expect(Object.keys(res.data?.[0] ?? {})).toEqual(columns.map((c) => c.column_name));
    const minimal = await db.from(writes).upsert({ id: 1, code: 'w1', name: 'merged' });
    expect(minimal.status).toBe(200);
    expect((await stored(1)).name).toBe('merged');
  });

  test('ignore-duplicates leaves existing rows alone: nothing inserted is still 201, as PostgREST answers', async () => {
    const res = await db.from(writes).upsert({ id: 1, code: 'w1', name: 'ignored' }, { ignoreDuplicates: true });
    expect(res.status).toBe(201);
    expect((await stored(1)).name).toBe('merged');
    const selected = await db
      .from(writes)
      .upsert({ id: 1, code: 'w1', name: 'ignored' }, { onConflict: 'code', ignoreDuplicates: true })
      .select();
    expect(selected).toMatchObject({ data: [], error: null, status: 201, statusText: 'Created' });
    expect((await stored(1)).name).toBe('merged');
    const fresh = await db
      .from(writes)
      .upsert({ id: 22, code: 'w22', name: 'new' }, { ignoreDuplicates: true })
      .select('id');
    expect(fresh.status).toBe(201);
    expect(fresh.data).toEqual([{ id: 22 }]);
  });

  test('on_conflict picks the unique column', async () => {
    const res = await db.from(writes).upsert({ id: 20, code: 'w20', name: 'by code' }, { onConflict: 'code' });
    expect(res.error).toBeNull();
    expect((await stored(20)).name).toBe('by code');
    const bad = await db.from(writes).upsert({ id: 21, code: 'w21', name: 'x' }, { onConflict: 'nope' });
    expect(bad.status).toBe(400);
    expect(bad.error?.code).toBe('PGRST204');
    expect(await stored(21)).toBeUndefined();
  });
});

describe('delete', () => {
  test('select() returns the deleted rows; plain delete is 204', async () => {
    const res = await db.from(writes).delete().eq('id', 3).select('id,name');
    expect(res.status).toBe(200);
    expect(res.data).toEqual([{ id: 3, name: 'three' }]);
    expect(await stored(3)).toBeUndefined();
    const plain = await db.from(writes).delete().eq('id', 4);
    expect(plain.status).toBe(204);
    expect(plain.data).toBeNull();
    expect(await stored(4)).toBeUndefined();
  });

  test('without a filter it is refused (21000) and nothing is deleted', async () => {
    const before = await t.stack.ctx.db.query<{ n: number }>(`select count(*)::int as n from public.${writes}`);
    const res = await db.from(writes).delete();
    expect(res.status).toBe(400);
    expect(res.error).toEqual({ code: '21000', details: null, hint: null, message: 'DELETE requires a WHERE clause' });
    const after = await t.stack.ctx.db.query<{ n: number }>(`select count(*)::int as n from public.${writes}`);
    expect(after[0].n).toBe(before[0].n);
    expect(before[0].n).toBeGreaterThan(0);
  });
});
