// Hostile identifiers and values in REST requests: each is refused (400/404) or treated as plain data,
// and nothing in the database changes. auth.* and pg_catalog stay out of reach.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createMember, type Member, rest } from '../../testing/rest-helpers.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;
let member: Member;
const table = `inj_items_${randomUUID().slice(0, 8)}`;
let snapshot: string;

async function state(): Promise<string> {
  const q = t.stack.ctx.db.query.bind(t.stack.ctx.db);
  const rows = await q(`select id, name, secret from public.${table} order by id`);
  const profiles = await q(
    'select user_id, first_name, last_name, email, email_verified from public.profiles where user_id = $1::uuid',
    [member.id],
  );
  const users = await q('select id, email from auth.users where id = $1::uuid', [member.id]);
  const tables = await q(
    `select count(*)::int as n from pg_catalog.pg_tables where schemaname = 'public' and tablename in ('profiles', $1::text)`,
    [table],
  );
  return JSON.stringify({ rows, profiles, users, tables });
}

beforeAll(async () => {
  t = await startTestStack();
  member = await createMember(t, 'inj');
  await t.stack.ctx.db.exec(`
    create table public.${table} (id int primary key, name text, secret text, meta jsonb);
    insert into public.${table} values
      (1, 'plain', 's1', '{"a":1}'),
      (2, 'it''s quoted "twice"', 's2', null),
      (3, 'semi; colon) paren', 's3', null);
    grant select, insert, update, delete on public.${table} to anon;
  `);
});
afterAll(async () => {
  await t?.stack.ctx.db.exec(`drop table if exists public.${table}`);
  await t?.stop();
});

beforeEach(async () => {
  snapshot = await state();
});

/** Every request in this file must leave the data exactly as it was. */
async function unchanged() {
  expect(await state()).toBe(snapshot);
}

function expectRefused(status: number, allowed: number[] = [400, 404]) {
  expect(allowed).toContain(status);
}

describe('select', () => {
  test('subqueries and statements in select are parse errors', async () => {
    const sub = await t.anon().from(table).select('*,(select 1)');
    expect(sub.status).toBe(400);
    expect(sub.error?.code).toBe('PGRST100');
    expect(sub.error?.message).toBe('"failed to parse select parameter (*,(select1))" (line 1, column 3)');

    for (const select of [
      '"id"; drop table profiles',
      'id from auth.users --',
      'id);drop table x;--',
      'name::text);drop table x;--',
    ]) {
      const res = await rest(t, `${table}?select=${encodeURIComponent(select)}`);
      expect(res.status, select).toBe(400);
      expect((await res.json()).code, select).toBe('PGRST100');
    }
    await unchanged();
  });

  test('a quoted alias or column name is an identifier, never SQL', async () => {
    const alias = 'x" from pg_catalog.pg_authid; --';
    const res = await rest(
      t,
      `${table}?select=${encodeURIComponent(`"x\\" from pg_catalog.pg_authid; --":name`)}&id=eq.1`,
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ [alias]: 'plain' }]);

    const col = await rest(t, `${table}?select=${encodeURIComponent('"name\\" , secret --"')}`);
    expect(col.status).toBe(400);
    expect(await col.json()).toEqual({
      code: '42703',
      details: null,
      hint: null,
      message: `column ${table}.name" , secret -- does not exist`,
    });
    await unchanged();
  });

  test('a JSON path key is a value', async () => {
    const res = await rest(t, `${table}?select=${encodeURIComponent(`v:meta->>"a'); drop table x; --"`)}&id=eq.1`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ v: null }]);
    await unchanged();
  });
});

describe('filters', () => {
  test('values with quotes, semicolons and parentheses are compared as data', async () => {
    const a = await t.anon().from(table).select('id').eq('name', "x'; drop table profiles; --");
    expect(a.status).toBe(200);
    expect(a.data).toEqual([]);
    const b = await t.anon().from(table).select('id').eq('name', `it's quoted "twice"`);
    expect(b.data).toEqual([{ id: 2 }]);
    const c = await t.anon().from(table).select('id').eq('name', 'semi; colon) paren');
    expect(c.data).toEqual([{ id: 3 }]);
    const d = await t.anon().from(table).select('id').in('name', ["a') or true --", 'semi; colon) paren']);
    expect(d.data).toEqual([{ id: 3 }]);
    const e = await t.anon().from(table).select('id').like('name', "*' or '1'='1");
    expect(e.data).toEqual([]);
    const f = await t.anon().from(table).select('id').eq('id', '1 or 1=1');
    expect(f.status).toBe(400);
    expect(f.error?.code).toBe('22P02');
    await unchanged();
  });

  test('column names in filters are checked identifiers', async () => {
    for (const key of ['id; drop table profiles', 'id)or(true', '"id""x"', 'id--']) {
      const res = await rest(t, `${table}?${encodeURIComponent(key)}=eq.1`);
      expectRefused(res.status);
      const body = await res.json();
      expect(['PGRST100', '42703'], key).toContain(body.code);
    }
    const quoted = await rest(t, `${table}?${encodeURIComponent('"secret\\" is not null or \\"id"')}=eq.1`);
    expect(quoted.status).toBe(400);
    expect((await quoted.json()).code).toBe('42703');
    await unchanged();
  });

  test('or= trees cannot be escaped', async () => {
    const a = await t.anon().from(table).select('id').or("name.eq.x'),id.eq.1");
    expect(a.status).toBe(400);
    expect(a.error?.code).toBe('PGRST100');
    const b = await rest(t, `${table}?or=${encodeURIComponent('(id.eq.1);drop table profiles;--')}`);
    expect(b.status).toBe(400);
    const c = await t.anon().from(table).select('id').or('name.eq."x\\",id.gt.0"');
    expect(c.status).toBe(200);
    expect(c.data).toEqual([]);
    await unchanged();
  });

  test('writes with hostile filters touch nothing they should not', async () => {
    const upd = await t.anon().from(table).update({ secret: 'pwned' }).eq('name', "x' or '1'='1");
    expect(upd.status).toBe(204);
    const del = await t.anon().from(table).delete().eq('id', '1; delete from profiles');
    expect(del.status).toBe(400);
    await unchanged();
  });
});

describe('order, on_conflict, columns and payload keys', () => {
  test('order', async () => {
    for (const order of [
      'id;drop table x',
      'id desc; drop table profiles',
      '(select 1)',
      'id.asc,(case when true then 1 end)',
    ]) {
      const res = await rest(t, `${table}?order=${encodeURIComponent(order)}`);
      expect(res.status, order).toBe(400);
      expect((await res.json()).code, order).toBe('PGRST100');
    }
    const viaClient = await t.anon().from(table).select('id').order('id; drop table x');
    expect(viaClient.status).toBe(400);
    const unknown = await t.anon().from(table).select('id').order('secret" desc, "id');
    expect(unknown.status).toBe(400);
    await unchanged();
  });

  test('on_conflict and columns', async () => {
    const onConflict = await rest(t, `${table}?on_conflict=${encodeURIComponent('id) do nothing; drop table x; --')}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Prefer: 'resolution=merge-duplicates' },
      body: JSON.stringify({ id: 1, name: 'over' }),
    });
    expect(onConflict.status).toBe(400);
    expect((await onConflict.json()).code).toBe('PGRST100');

    const columns = await rest(t, `${table}?columns=${encodeURIComponent('id,"name"") values (9, 9); --"')}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify([{ id: 9, name: 'nine' }]),
    });
    expect(columns.status).toBe(400);
    expect((await columns.json()).code).toBe('PGRST100');

    const quotedColumns = await rest(t, `${table}?columns=${encodeURIComponent('id,"name\\") values (9, 9); --"')}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify([{ id: 9, name: 'nine' }]),
    });
    expect(quotedColumns.status).toBe(400);
    expect((await quotedColumns.json()).code).toBe('PGRST204');
    await unchanged();
  });

  test('payload keys are checked; payload values are data', async () => {
    const key = await t.anon().from(table).insert({ id: 10, 'name) values (11, 11); --': 'x' });
    expect(key.status).toBe(400);
    expect(key.error?.code).toBe('PGRST204');
    await unchanged();

    const value = "'); drop table profiles; --";
    const res = await t
      .anon()
      .from(table)
      .insert({ id: 12, name: value, meta: { "k'); --": value } })
      .select('name,meta')
      .single();
    expect(res.status).toBe(201);
    expect(res.data).toEqual({ name: value, meta: { "k'); --": value } });
    await t.stack.ctx.db.exec(`delete from public.${table} where id = 12`);
    await unchanged();
  });
});

describe('table names and schemas', () => {
  test('statements, other schemas and paths in the table name are not found', async () => {
    for (const name of [
      'profiles; drop table profiles',
      'pg_catalog.pg_authid',
      'auth.users',
      '"profiles"',
      'information_schema.tables',
      'pg_user',
    ]) {
      const res = await t.admin().from(name).select();
      expect(res.status, name).toBe(404);
      expect(res.error?.code, name).toBe('PGRST205');
      expect(res.error?.message, name).toBe(`Could not find the table 'public.${name}' in the schema cache`);
    }
    const dotdot = await t.admin().from('../auth.users').select();
    expect(dotdot.status).toBe(404);
    expect(dotdot.data).toBeNull();
    const encoded = await rest(t, '..%2Fauth.users', {
      headers: { apikey: t.config.serviceRoleKey, Authorization: `Bearer ${t.config.serviceRoleKey}` },
    });
    expect(encoded.status).toBe(404);
    expect((await encoded.json()).code).toBe('PGRST205');
    await unchanged();
  });

  test('auth.users is out of reach even for the service role, through profiles or a schema header', async () => {
    const viaProfile = await t.admin().schema('auth').from('users').select('*');
    expect(viaProfile.status).toBe(406);
    expect(viaProfile.error?.code).toBe('PGRST106');
    const write = await rest(t, 'users', {
      method: 'PATCH',
      headers: {
        apikey: t.config.serviceRoleKey,
        Authorization: `Bearer ${t.config.serviceRoleKey}`,
        'Content-Type': 'application/json',
        'Content-Profile': 'auth',
      },
      body: JSON.stringify({ email: 'x@example.test' }),
    });
    expect(write.status).toBe(406);
    const rpc = await rest(t, 'rpc/handle_new_user', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(rpc.status).toBe(404);
    await unchanged();
  });

  test('the tables are all still there', async () => {
    const rows = await t.stack.ctx.db.query<{ n: number }>(`select count(*)::int as n from public.${table}`);
    expect(rows[0].n).toBe(3);
    const profile = await member.client.from('profiles').select('user_id').eq('user_id', member.id).single();
    expect(profile.data).toEqual({ user_id: member.id });
  });
});
