// Db as the rest of the stack sees it, on the engine of the run (PGlite, or PostgreSQL with DATABASE_URL):
// rows and their types, errors with their SQLSTATE, transactions that commit or roll back, batches that are
// each one transaction, row-level security under a role set locally. The stack's REST-specific batches are
// in rest-prepared.test.ts.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { BatchStatement, Db } from '../../src/db/types.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

const kind = inject('template').kind;
let t: TestStack;
let db: Db;

beforeAll(async () => {
  t = await startTestStack();
  db = t.stack.ctx.db;
  await db.exec(`
    create table public.db_notes (id serial primary key, owner text not null, note text not null);
    alter table public.db_notes enable row level security;
    create policy own_notes on public.db_notes for all to authenticated
      using (owner = current_setting('request.jwt.claims', true)::json ->> 'sub')
      with check (owner = current_setting('request.jwt.claims', true)::json ->> 'sub');
    grant select, insert on public.db_notes to authenticated;
    grant usage on sequence public.db_notes_id_seq to authenticated;
    -- On PostgreSQL Db.batch runs as REST's login (authenticator), which holds nothing of its own: here it
    -- gets what PGlite's superuser session has.
    create policy login_notes on public.db_notes for all to authenticator using (true) with check (true);
    grant select, insert on public.db_notes to authenticator;
    grant usage on sequence public.db_notes_id_seq to authenticator;
    insert into public.db_notes (owner, note) values ('a', 'first of a'), ('b', 'first of b');`);
});
afterAll(() => t?.stop());

const insert = (note: string, owner = 'a'): BatchStatement => ({
  text: 'insert into public.db_notes (owner, note) values ($1, $2)',
  params: [owner, note],
});
const notes = async () =>
  (await db.query<{ note: string }>('select note from public.db_notes order by id')).map((r) => r.note);
/** Statements that make the rest of a batch run as `authenticated` with `sub` in its claims, as REST does. */
const asUser = (sub: string): BatchStatement => ({
  text: "select pg_catalog.set_config('role', 'authenticated', true), pg_catalog.set_config('request.jwt.claims', $1, true)",
  params: [JSON.stringify({ sub })],
});

describe('query and exec', () => {
  test('rows come as objects, integers and booleans as such, NULL as null', async () => {
    expect(await db.query('select $1::int as n, $2::text as s, null::text as z, true as b', [7, 'x'])).toEqual([
      { n: 7, s: 'x', z: null, b: true },
    ]);
    expect(await db.query('select 1 as n where false')).toEqual([]);
  });

  test('a failing statement rejects with its SQLSTATE', async () => {
    await expect(db.query('select 1 / 0')).rejects.toMatchObject({ code: '22012' });
    await expect(db.query('select * from public.no_such_table')).rejects.toMatchObject({ code: '42P01' });
    await expect(db.query('selec 1')).rejects.toMatchObject({ code: '42601' });
    await expect(
      db.exec("insert into public.db_notes (id, owner, note) values (1, 'a', 'again')"),
    ).rejects.toMatchObject({ code: '23505' });
  });
});

describe('transaction', () => {
  test('commits when the function resolves, and answers what it returned', async () => {
    const answer = await db.transaction(async (tx) => {
      await tx.query('insert into public.db_notes (owner, note) values ($1, $2)', ['a', 'committed']);
      return (await tx.query<{ n: number }>('select count(*)::int as n from public.db_notes'))[0]?.n;
    });
    expect(answer).toBeGreaterThanOrEqual(3);
    expect(await notes()).toContain('committed');
  });

  test('rolls back when the function throws, or when a statement fails, with that error', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.exec("insert into public.db_notes (owner, note) values ('a', 'thrown away')");
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await expect(
      db.transaction(async (tx) => {
        await tx.exec("insert into public.db_notes (owner, note) values ('a', 'failed away')");
        await tx.query('select 1 / 0');
      }),
    ).rejects.toMatchObject({ code: '22012' });
    expect(await notes()).not.toContain('thrown away');
    expect(await notes()).not.toContain('failed away');
  });

  test('a batch sent while a transaction is open does not become part of it', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inserted = () => {};
    const started = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const transaction = db.transaction(async (tx) => {
      await tx.query('insert into public.db_notes (owner, note) values ($1, $2)', ['a', 'in the transaction']);
      inserted();
      await held;
      throw new Error('rolled back');
    });
    await started;
    const batch = db.batch([insert('in the batch')], 'commit');
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await expect(transaction).rejects.toThrow('rolled back');
    await batch;
    expect(await notes()).toContain('in the batch');
    expect(await notes()).not.toContain('in the transaction');
  });
});

describe('batch', () => {
  test("answers each statement's rows, with the parameters bound as text", async () => {
    const [sum, none, selected] = await db.batch(
      [
        { text: 'select $1::int + 1 as n', params: ['41'] },
        { text: 'select 1 as n where $1::text is not null', params: [null] },
        { text: 'select note from public.db_notes where owner = $1 order by id limit 1', params: ['b'] },
      ],
      'commit',
    );
    expect(sum).toEqual([{ n: 42 }]);
    expect(none).toEqual([]);
    expect(selected).toEqual([{ note: 'first of b' }]);
  });

  test('a failing statement rejects with its SQLSTATE and undoes the statements before it', async () => {
    const before = await notes();
    await expect(db.batch([insert('undone'), { text: 'select 1 / 0' }], 'commit')).rejects.toMatchObject({
      code: '22012',
    });
    await expect(db.batch([insert('undone'), { text: 'selec 1' }], () => 'commit')).rejects.toMatchObject({
      code: '42601',
    });
    await expect(db.batch([insert('undone'), insert('undone', null as never)], 'rollback')).rejects.toMatchObject({
      code: '23502',
    });
    expect(await notes()).toEqual(before);
  });

  test('row-level security applies under a role set locally, and the role ends with the batch', async () => {
    const [, visible, role] = await db.batch(
      [asUser('a'), { text: 'select owner from public.db_notes' }, { text: 'select current_user as role' }],
      'commit',
    );
    expect(new Set(visible?.map((r) => r.owner))).toEqual(new Set(['a']));
    expect(role).toEqual([{ role: 'authenticated' }]);
    const [after] = await db.batch([{ text: 'select current_user as role' }], 'commit');
    expect(after).toEqual([{ role: kind === 'postgres' ? 'authenticator' : 'postgres' }]);
    // A row the policy refuses to write: 42501, and nothing is kept.
    await expect(db.batch([asUser('a'), insert('forged', 'b')], 'commit')).rejects.toMatchObject({ code: '42501' });
    expect(await notes()).not.toContain('forged');
  });

  test('more statement texts than are kept prepared all answer, and the first again after them', async () => {
    const texts = Array.from({ length: 300 }, (_, i) => `select ${i}::int as n`);
    for (const [i, text] of texts.entries()) expect(await db.batch([{ text }], 'commit')).toEqual([[{ n: i }]]);
    expect(await db.batch([{ text: texts[0] as string }], 'commit')).toEqual([[{ n: 0 }]]);
  });
});

// PGlite is one session, shared with the clients of its wire-protocol socket (psql, a function's SUPABASE_DB_URL).
describe.skipIf(kind !== 'pglite')('PGlite shared with the wire-protocol socket', () => {
  test('batches and queries answer after a socket client ran queries', async () => {
    const client = postgres(`postgresql://postgres@127.0.0.1:${t.config.ports.db}/postgres`, {
      max: 1,
      onnotice: () => {},
    });
    try {
      expect(await client`select 1 as one`).toEqual([{ one: 1 }]);
    } finally {
      await client.end();
    }
    expect(await db.batch([{ text: 'select 2 as two' }], 'commit')).toEqual([[{ two: 2 }]]);
    expect(await db.batch([{ text: 'select 3 as three' }], () => 'rollback')).toEqual([[{ three: 3 }]]);
    expect(await db.query('select 4 as four')).toEqual([{ four: 4 }]);
  });
});
