// The REST executor's one-call transactions of prepared statements: a schema change, a session that lost
// its prepared statements, and a failing statement all leave the next request answering as PostgREST would.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestStack, type TestStack } from './stack.ts';

let t: TestStack;

beforeAll(async () => {
  t = await startTestStack();
  await t.stack.ctx.db.exec(`
    create table public.prep_notes (id serial primary key, note text not null);
    grant select, insert on public.prep_notes to anon;
    grant usage on sequence public.prep_notes_id_seq to anon;
    insert into public.prep_notes (note) values ('first');`);
});
afterAll(() => t?.stop());

const read = () => t.anon().from('prep_notes').select('*').order('id');

describe('prepared statements', () => {
  test('a column added after a request was prepared shows in the same request', async () => {
    expect((await read()).data).toEqual([{ id: 1, note: 'first' }]);
    await t.stack.ctx.db.exec(`alter table public.prep_notes add column tag text not null default 'plain'`);
    expect((await read()).data).toEqual([{ id: 1, note: 'first', tag: 'plain' }]);
  });

  test('a session that dropped every prepared statement still answers', async () => {
    expect((await read()).error).toBeNull();
    await t.stack.ctx.db.exec('deallocate all');
    const { data, error } = await read();
    expect(error).toBeNull();
    expect(data).toHaveLength(1);
  });

  test('a failing statement rolls back and the next request runs in a fresh transaction', async () => {
    const failed = await t.anon().from('prep_notes').insert({ note: null });
    expect(failed.error).toMatchObject({ code: '23502' });
    expect(failed.status).toBe(400);
    const stored = await t.anon().from('prep_notes').insert({ note: 'second' }).select('note').single();
    expect(stored.error).toBeNull();
    expect(stored.data).toEqual({ note: 'second' });
    expect((await read()).data?.map((r) => r.note)).toEqual(['first', 'second']);
  });
});
