// Scratch tables for the /rest/v1 feature tests (rest-read, rest-range, rest-write, rest-upsert,
// rest-errors), created directly in the database. Names are unique per run so files can share one
// PostgreSQL database.
import { randomUUID } from 'node:crypto';
import type { TestStack } from './stack.ts';

/** Fresh table names: `items` (six rows to read) and `writes` (empty, to write into). */
export function restTableNames(): { items: string; writes: string } {
  const tag = randomUUID().slice(0, 8);
  return { items: `rest_items_${tag}`, writes: `rest_writes_${tag}` };
}

/** The ids of an answer's rows, in order. */
export const ids = (rows: unknown) => (rows as { id: number }[] | null)?.map((r) => r.id);

/** Six rows of every JSON shape: numeric, arrays, jsonb, booleans, nulls, values with commas and quotes. */
export async function createItems(t: TestStack, items: string): Promise<void> {
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
    grant select on public.${items} to anon;`);
}

/** An empty table anon may read and write: a unique `code`, a NOT NULL `name`, column defaults. */
export async function createWrites(t: TestStack, writes: string): Promise<void> {
  await t.stack.ctx.db.exec(`
    create table public.${writes} (
      id int primary key,
      code text unique,
      name text not null,
      qty int default 0,
      created_at timestamptz not null default now()
    );
    grant select, insert, update, delete on public.${writes} to anon;`);
}

/** A row of `writes` as stored, read past REST; undefined when there is none. */
export async function storedWrite(t: TestStack, writes: string, id: number) {
  const rows = await t.stack.ctx.db.query<{ id: number; code: string | null; name: string; qty: number | null }>(
    `select id, code, name, qty from public.${writes} where id = $1`,
    [id],
  );
  return rows[0];
}

/** Drops the tables made here (those that exist). */
export async function dropRestTables(t: TestStack | undefined, ...tables: string[]): Promise<void> {
  await t?.stack.ctx.db.exec(tables.map((name) => `drop table if exists public.${name};`).join(' '));
}
