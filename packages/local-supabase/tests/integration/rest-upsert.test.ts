// Upserts (Prefer: resolution=merge-duplicates / ignore-duplicates, on_conflict) and missing=default
// (supabase-js defaultToNull: false) for inserts and upserts, as PostgREST answers them. The upsert tests
// build on one another's rows, in file order.
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createWrites, dropRestTables, restTableNames, storedWrite } from '../../testing/rest-tables.ts';
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

describe('missing=default', () => {
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
});
