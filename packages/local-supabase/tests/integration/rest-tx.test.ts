// Prefer: tx=commit|rollback, honoured as PostgREST does only when its in-database setting
// pgrst.db_tx_end (on the authenticator role) allows an override; `rollback` rolls every request back.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rest } from '../../testing/rest-helpers.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;

beforeAll(async () => {
  t = await startTestStack();
  await t.stack.ctx.db.exec(`
    create table public.tx_notes (id serial primary key, note text not null);
    grant all on public.tx_notes to anon;
    grant usage on sequence public.tx_notes_id_seq to anon;
    create function public.add_tx_note(note text) returns void language sql
      as $$ insert into public.tx_notes (note) values (note) $$;`);
});
afterAll(() => t?.stop());

/**
 * Sets pgrst.db_tx_end for this test's database only (roles are shared by every database of a PostgreSQL
 * cluster, and other test files run beside this one), then waits past the stack's one-second cache of it.
 */
async function txEnd(value: string | null) {
  const [{ name }] = await t.stack.ctx.db.query<{ name: string }>('select current_database() as name');
  const role = `alter role authenticator in database "${name.replaceAll('"', '""')}"`;
  await t.stack.ctx.db.exec(
    value === null ? `${role} reset pgrst.db_tx_end` : `${role} set pgrst.db_tx_end = '${value}'`,
  );
  await new Promise((r) => setTimeout(r, 1100));
}

async function insert(note: string, prefer: string) {
  const res = await rest(t, 'tx_notes', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Prefer: prefer },
    body: JSON.stringify({ note }),
  });
  return { status: res.status, applied: res.headers.get('preference-applied'), body: await res.text() };
}

async function stored(note: string) {
  return (await t.stack.ctx.db.query('select 1 from public.tx_notes where note = $1::text', [note])).length === 1;
}

describe('Prefer: tx', () => {
  test('by default (commit) tx=rollback is ignored and the row is stored', async () => {
    const res = await insert('default', 'return=representation, tx=rollback');
    expect(res.status).toBe(201);
    expect(res.applied).toBe('return=representation');
    expect(await stored('default')).toBe(true);
  });

  test('commit-allow-override: tx=rollback answers as usual, says so, and keeps nothing', async () => {
    await txEnd('commit-allow-override');
    const res = await insert('rolled back', 'return=representation, tx=rollback');
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body)).toMatchObject([{ note: 'rolled back' }]);
    expect(res.applied).toBe('return=representation, tx=rollback');
    expect(await stored('rolled back')).toBe(false);
    expect((await insert('committed', 'return=minimal')).status).toBe(201);
    expect(await stored('committed')).toBe(true);

    const rpc = await rest(t, 'rpc/add_tx_note', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Prefer: 'tx=rollback' },
      body: JSON.stringify({ note: 'by rpc' }),
    });
    expect(rpc.status).toBe(204);
    expect(rpc.headers.get('preference-applied')).toBe('tx=rollback');
    expect(await stored('by rpc')).toBe(false);
  });

  test('rollback-allow-override: rolled back unless tx=commit', async () => {
    await txEnd('rollback-allow-override');
    expect((await insert('no preference', 'return=minimal')).status).toBe(201);
    expect(await stored('no preference')).toBe(false);
    const kept = await insert('asked to commit', 'tx=commit');
    expect(kept.applied).toBe('tx=commit');
    expect(await stored('asked to commit')).toBe(true);
  });

  test('rollback: every request rolls back, whatever it prefers', async () => {
    await txEnd('rollback');
    const res = await insert('never', 'tx=commit');
    expect(res.status).toBe(201);
    expect(res.applied).toBeNull();
    expect(await stored('never')).toBe(false);
    await txEnd(null);
    expect((await insert('back to normal', 'tx=rollback')).status).toBe(201);
    expect(await stored('back to normal')).toBe(true);
  });
});
