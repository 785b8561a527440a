// The REST executor's one-call transactions of prepared statements: a schema change, a session that lost
// its prepared statements, and a failing statement all leave the next request answering as PostgREST would.
// Below them, Db.batch itself: each batch is one transaction, whichever way it ends, also when many run at
// once (on PGlite the batches waiting together share one call, each with its own Sync).
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;

beforeAll(async () => {
  t = await startTestStack();
  await t.stack.ctx.db.exec(`
    create table public.prep_notes (id serial primary key, note text not null);
    grant select, insert on public.prep_notes to anon;
    grant usage on sequence public.prep_notes_id_seq to anon;
    insert into public.prep_notes (note) values ('first');
    -- Db.batch runs as REST's login (on PostgreSQL authenticator, which holds nothing of its own); the
    -- batches below set no role, so the table is granted to it here.
    grant select, insert on public.prep_notes to authenticator;
    grant usage on sequence public.prep_notes_id_seq to authenticator;`);
});
afterAll(() => t?.stop());

const read = () => t.anon().from('prep_notes').select('*').order('id');

describe('prepared statements', () => {
  test('a column added after a request was prepared shows in the same request', async () => {
    expect((await read()).data).toEqual([{ id: 1, note: 'first' }]);
    await t.stack.ctx.db.exec(`alter table public.prep_notes add column tag text not null default 'plain'`);
    expect((await read()).data).toEqual([{ id: 1, note: 'first', tag: 'plain' }]);
  });

  // PGlite is one session, shared with the wire-protocol socket (psql), where a client may DEALLOCATE ALL.
  // On PostgreSQL each of the stack's connections is a session of its own that no client can reach (and a
  // DEALLOCATE on one of postgres.js's would make its next sql.begin roll back without an error: it
  // retries its prepared COMMIT inside the block that the failed one aborted).
  test.skipIf(inject('template').kind !== 'pglite')(
    'a session that dropped every prepared statement still answers',
    async () => {
      expect((await read()).error).toBeNull();
      await t.stack.ctx.db.exec('deallocate all');
      const { data, error } = await read();
      expect(error).toBeNull();
      expect(data).toHaveLength(1);
    },
  );

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

describe('Db.batch: one transaction per batch', () => {
  const notes = async () =>
    (await t.stack.ctx.db.query<{ note: string }>('select note from public.prep_notes order by id')).map((r) => r.note);
  const insert = (note: string) => ({ text: 'insert into public.prep_notes (note) values ($1)', params: [note] });
  const localRole = { text: "select pg_catalog.set_config('role', 'anon', true) as role" };
  const currentRole = { text: 'select current_user as role' };

  test('a later statement failing undoes an earlier one of a committing batch', async () => {
    const before = await notes();
    await expect(
      t.stack.ctx.db.batch([insert('kept only if all ran'), { text: 'select 1 / 0' }], 'commit'),
    ).rejects.toMatchObject({ code: '22012' });
    expect(await notes()).toEqual(before);
  });

  test('settings made local to the batch hold for its later statements and end with it', async () => {
    const [, inBatch] = await t.stack.ctx.db.batch([localRole, currentRole], 'commit');
    expect(inBatch).toEqual([{ role: 'anon' }]);
    const [after] = await t.stack.ctx.db.batch([currentRole], 'commit');
    // The session's own user: PGlite's one superuser session, or REST's login on PostgreSQL.
    expect(after).toEqual([{ role: inject('template').kind === 'postgres' ? 'authenticator' : 'postgres' }]);
  });

  test('a rolled-back batch answers its rows and keeps nothing', async () => {
    const before = await notes();
    const [inserted] = await t.stack.ctx.db.batch(
      [{ text: 'insert into public.prep_notes (note) values ($1) returning note', params: ['rolled back'] }],
      'rollback',
    );
    expect(inserted).toEqual([{ note: 'rolled back' }]);
    expect(await notes()).toEqual(before);
  });

  test('an end decided from the rows commits, rolls back, or fails with what it threw', async () => {
    const before = await notes();
    await t.stack.ctx.db.batch([insert('decided: commit')], () => 'commit');
    await t.stack.ctx.db.batch([insert('decided: rollback')], () => 'rollback');
    await expect(
      t.stack.ctx.db.batch([insert('decided: throw')], () => {
        throw new Error('not this one');
      }),
    ).rejects.toThrow('not this one');
    expect(await notes()).toEqual([...before, 'decided: commit']);
  });

  test('batches sent at once: each commits or fails on its own, and a new statement text works in all of them', async () => {
    const before = await notes();
    const run = `at once ${Date.now()}`;
    // A statement text no batch has run before, in every batch; the first fails before it gets there.
    const fresh = { text: `select count(*)::int as n from public.prep_notes where note like $1 || '%'`, params: [run] };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        t.stack.ctx.db.batch(
          i === 0 ? [{ text: 'select 1 / 0' }, insert(`${run} ${i}`), fresh] : [insert(`${run} ${i}`), fresh],
          'commit',
        ),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual([
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect((outcomes[0] as PromiseRejectedResult).reason).toMatchObject({ code: '22012' });
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') expect(outcome.value[1]?.[0]?.n).toBeGreaterThanOrEqual(1);
    }
    const added = (await notes()).slice(before.length);
    expect(added.sort()).toEqual([1, 2, 3, 4, 5, 6, 7].map((i) => `${run} ${i}`));
    // And the text runs again afterwards, alone.
    const [again] = await t.stack.ctx.db.batch([fresh], 'commit');
    expect(again).toEqual([{ n: 7 }]);
  });
});
