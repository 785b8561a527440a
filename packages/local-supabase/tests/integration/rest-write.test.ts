// PostgREST writes through supabase-js (raw fetch only where supabase-js hides the wire): insert, update and
// delete, their answers (201/204/200, return=, count), refusals and what stays stored. The tests build on
// one another's rows, in file order.
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rest } from '../../testing/rest-helpers.ts';
import { createWrites, dropRestTables, ids, restTableNames, storedWrite } from '../../testing/rest-tables.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;
let db: SupabaseClient;
const { writes } = restTableNames();

beforeAll(async () => {
  t = await startTestStack();
  db = t.anon();
  await createWrites(t, writes);
});

afterAll(async () => {
  await dropRestTables(t, writes);
  await t?.stop();
});

const stored = (id: number) => storedWrite(t, writes, id);

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

describe('limited writes', () => {
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
