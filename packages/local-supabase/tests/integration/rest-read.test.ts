// PostgREST reads of /rest/v1 through supabase-js (raw fetch only where supabase-js hides the wire):
// select (columns, renames, casts, JSON paths, embedding), filters and their operators, order.
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

describe('order', () => {
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
});
