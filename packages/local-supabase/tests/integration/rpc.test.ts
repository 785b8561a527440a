// /rest/v1/rpc/<function> through supabase-js .rpc(): named arguments, scalar / setof / table / composite
// / void results, params=single-object, read filters on returned rows, the request's role and claims
// (EXECUTE grants and RLS apply), read-only GET, and PostgREST's errors for an unknown function.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMember, type Member, rest } from '../../testing/rest-helpers.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;
let a: Member;
let b: Member;

const FUNCTIONS = `
  create table public.rpc_log (id serial primary key, note text not null);
  grant all on public.rpc_log to anon, authenticated, service_role;
  grant usage on sequence public.rpc_log_id_seq to anon, authenticated, service_role;

  create function public.add_them(a integer, b integer) returns integer
    language sql immutable as $$ select a + b $$;
  create function public.greet(name text, greeting text default 'Hello') returns text
    language sql immutable as $$ select greeting || ', ' || name $$;
  create function public.numbers(upto integer) returns setof integer
    language sql immutable as $$ select generate_series(1, upto) $$;
  create function public.squares(upto integer) returns table (n integer, square integer, label text)
    language sql immutable as $$ select i, i * i, 'n' || i from generate_series(1, upto) i $$;
  create function public.my_profile() returns public.profiles
    language sql stable as $$ select * from public.profiles where user_id = auth.uid() $$;
  create function public.visible_profiles() returns setof public.profiles
    language sql stable as $$ select * from public.profiles order by email $$;
  create function public.jwt_role() returns text
    language sql stable as $$ select current_setting('request.jwt.claims', true)::json ->> 'role' $$;
  create function public.request_context() returns json
    language sql stable as $$ select json_build_object(
      'method', current_setting('request.method', true),
      'path', current_setting('request.path', true),
      'headers', current_setting('request.headers', true)::json,
      'cookies', current_setting('request.cookies', true)::json) $$;
  create function public.log_note(note text) returns void
    language sql as $$ insert into public.rpc_log (note) values (note) $$;
  create function public.echo_body(payload jsonb) returns jsonb
    language sql immutable as $$ select payload $$;
  create function public.echo_unnamed(json) returns json
    language sql immutable as $$ select $1 $$;
  create function public.sum_array(xs integer[]) returns integer
    language sql immutable as $$ select coalesce(sum(x), 0)::int from unnest(xs) x $$;
  create function public.members_only() returns text
    language sql stable as $$ select 'secret' $$;
  revoke execute on function public.members_only() from public, anon;
  grant execute on function public.members_only() to authenticated;

  create table public.rpc_users (username text primary key, status text not null);
  grant all on public.rpc_users to anon, authenticated, service_role;
  insert into public.rpc_users values ('supabot', 'ONLINE');
  create function public.get_status(name_param text) returns text
    language sql stable as $$ select status from public.rpc_users where username = name_param $$;
  create function public.set_users_offline(name_param text) returns setof public.rpc_users
    language sql as $$ update public.rpc_users set status = 'OFFLINE' where username like name_param returning * $$;
  create function public.log_rows(n integer) returns setof public.rpc_log
    language sql as $$ insert into public.rpc_log (note) select 'batch ' || i from generate_series(1, n) i returning * $$;
`;

beforeAll(async () => {
  t = await startTestStack();
  await t.stack.ctx.db.exec(FUNCTIONS);
  a = await createMember(t, 'rpc-a', { firstName: 'Ada', lastName: 'Lovelace' });
  b = await createMember(t, 'rpc-b', { firstName: 'Grace', lastName: 'Hopper' });
});
afterAll(() => t?.stop());

describe('results as PostgREST returns them', () => {
  test('a scalar result is the bare value, by POST and by GET', async () => {
    const post = await t.anon().rpc('add_them', { a: 2, b: 40 });
    expect(post).toMatchObject({ data: 42, error: null, status: 200 });
    const get = await t.anon().rpc('add_them', { a: '5', b: 6 }, { get: true });
    expect(get).toMatchObject({ data: 11, error: null, status: 200 });
  });

  test('an argument with a default may be left out', async () => {
    expect((await t.anon().rpc('greet', { name: 'Ada' })).data).toBe('Hello, Ada');
    expect((await t.anon().rpc('greet', { name: 'Ada', greeting: 'Hi' })).data).toBe('Hi, Ada');
  });

  test('setof a scalar is an array; table results are rows that select, filters, order and range apply to', async () => {
    expect((await t.anon().rpc('numbers', { upto: 4 })).data).toEqual([1, 2, 3, 4]);
    const rows = await t
      .anon()
      .rpc('squares', { upto: 6 })
      .select('n,square')
      .gt('n', 2)
      .order('n', { ascending: false })
      .limit(2);
    expect(rows.error).toBeNull();
    expect(rows.data).toEqual([
      { n: 6, square: 36 },
      { n: 5, square: 25 },
    ]);
    const counted = await t.anon().rpc('squares', { upto: 6 }, { count: 'exact' }).range(0, 1);
    expect(counted.count).toBe(6);
    expect(counted.data).toEqual([
      { n: 1, square: 1, label: 'n1' },
      { n: 2, square: 4, label: 'n2' },
    ]);
    expect(counted.status).toBe(206);
    const one = await t.anon().rpc('squares', { upto: 3 }).eq('n', 2).single();
    expect(one.data).toEqual({ n: 2, square: 4, label: 'n2' });
  });

  test('arrays and JSON travel as JSON', async () => {
    expect((await t.anon().rpc('sum_array', { xs: [1, 2, 3] })).data).toBe(6);
    const json = await t.anon().rpc('echo_body', { payload: { nested: [1, { x: 'y' }] } });
    expect(json.data).toEqual({ nested: [1, { x: 'y' }] });
  });

  test('a function returning void answers 204 and its write is stored', async () => {
    const res = await t.anon().rpc('log_note', { note: 'stored by rpc' });
    expect(res).toMatchObject({ data: null, error: null, status: 204 });
    const rows = await t.stack.ctx.db.query<{ note: string }>('select note from public.rpc_log');
    expect(rows.map((r) => r.note)).toContain('stored by rpc');
  });

  test('Prefer: params=single-object passes the whole body; so does one unnamed json argument', async () => {
    const single = await rest(t, 'rpc/echo_body', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Prefer: 'params=single-object' },
      body: JSON.stringify({ any: 'shape', n: 1 }),
    });
    expect(single.status).toBe(200);
    expect(await single.json()).toEqual({ any: 'shape', n: 1 });
    const unnamed = await t.anon().rpc('echo_unnamed', { whole: ['body'] });
    expect(unnamed.data).toEqual({ whole: ['body'] });
  });
});

describe('counts and max-affected, as PostgREST answers them', () => {
  test("count: 'exact' on a function returning one value counts its one row, by POST, HEAD and GET", async () => {
    const post = await t.anon().rpc('get_status', { name_param: 'supabot' }, { count: 'exact' });
    expect(post).toMatchObject({ data: 'ONLINE', count: 1, error: null, status: 200 });
    const head = await t.anon().rpc('get_status', { name_param: 'supabot' }, { head: true, count: 'exact' });
    expect(head).toMatchObject({ data: null, count: 1, error: null, status: 200 });
    const get = await t.anon().rpc('get_status', { name_param: 'supabot' }, { get: true, count: 'exact' });
    expect(get).toMatchObject({ data: 'ONLINE', count: 1, error: null, status: 200 });
    // A void function's 204 carries the same Content-Range.
    const voidCall = await rest(t, 'rpc/log_note', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Prefer: 'count=exact' },
      body: JSON.stringify({ note: 'counted' }),
    });
    expect(voidCall.status).toBe(204);
    expect(voidCall.headers.get('content-range')).toBe('0-0/1');
  });

  test("count: 'exact' runs a function that writes once: the count and the rows stored agree", async () => {
    const before = await t.stack.ctx.db.query("select 1 from public.rpc_log where note like 'batch %'");
    const res = await t.anon().rpc('log_rows', { n: 3 }, { count: 'exact' }).select('note');
    expect(res).toMatchObject({ count: 3, error: null, status: 200 });
    expect(res.data).toEqual([{ note: 'batch 1' }, { note: 'batch 2' }, { note: 'batch 3' }]);
    const after = await t.stack.ctx.db.query("select 1 from public.rpc_log where note like 'batch %'");
    expect(after.length - before.length).toBe(3);
  });

  test('max-affected on a function returning more rows: 400 PGRST124, and what it wrote is rolled back', async () => {
    await t.stack.ctx.db.exec(
      "insert into public.rpc_users values ('testuser1', 'ONLINE'), ('testuser2', 'ONLINE'), ('testuser3', 'ONLINE')",
    );
    const call = (name: string, max: number) =>
      rest(t, 'rpc/set_users_offline?select=*', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Prefer: `handling=strict, max-affected=${max}` },
        body: JSON.stringify({ name_param: name }),
      });
    const over = await call('testuser%', 1);
    expect(over.status).toBe(400);
    expect(await over.json()).toEqual({
      code: 'PGRST124',
      message: 'Query result exceeds max-affected preference constraint',
      details: 'The query affects 3 rows',
      hint: null,
    });
    const statuses = await t.stack.ctx.db.query<{ status: string }>(
      "select status from public.rpc_users where username like 'testuser%'",
    );
    expect(statuses.map((r) => r.status)).toEqual(['ONLINE', 'ONLINE', 'ONLINE']);

    const within = await call('testuser1', 1);
    expect(within.status).toBe(200);
    expect(within.headers.get('preference-applied')).toBe('handling=strict, max-affected=1');
    expect(await within.json()).toEqual([{ username: 'testuser1', status: 'OFFLINE' }]);
  });

  test('max-affected on a function returning one value: 400 PGRST128', async () => {
    const res = await rest(t, 'rpc/get_status', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Prefer: 'handling=strict, max-affected=1' },
      body: JSON.stringify({ name_param: 'supabot' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: 'PGRST128',
      message: 'Function must return SETOF or TABLE when max-affected preference is used with handling=strict',
    });
  });
});

describe('the request runs as its JWT role with its claims', () => {
  test('claims reach the function; RLS limits what a security-invoker function reads', async () => {
    expect((await a.client.rpc('jwt_role')).data).toBe('authenticated');
    expect((await t.anon().rpc('jwt_role')).data).toBe('anon');
    expect((await t.admin().rpc('jwt_role')).data).toBe('service_role');
    const mine = await a.client.rpc('my_profile');
    expect(mine.data).toMatchObject({ user_id: a.id, first_name: 'Ada' });
    const visible = await b.client.rpc('visible_profiles').select('user_id');
    expect(visible.data).toEqual([{ user_id: b.id }]);
    const all = await t.admin().rpc('visible_profiles').select('user_id');
    expect(((all.data ?? []) as { user_id: string }[]).map((r) => r.user_id).sort()).toEqual([a.id, b.id].sort());
  });

  test('the request itself reaches SQL: method, path, headers by lower-case name, cookies', async () => {
    const res = await fetch(`${t.url}/rest/v1/rpc/request_context`, {
      method: 'POST',
      headers: {
        apikey: t.config.anonKey,
        'Content-Type': 'application/json',
        'X-Trace-Note': 'from the test',
        Cookie: 'theme=dark; lang=en',
      },
      body: '{}',
    });
    expect(res.status).toBe(200);
    const seen = await res.json();
    expect(seen).toMatchObject({
      method: 'POST',
      path: '/rpc/request_context',
      headers: { apikey: t.config.anonKey, 'content-type': 'application/json', 'x-trace-note': 'from the test' },
      cookies: { theme: 'dark', lang: 'en' },
    });
  });

  test('EXECUTE grants apply: 401 for a visitor, 200 for a member', async () => {
    const visitor = await t.anon().rpc('members_only');
    expect(visitor.status).toBe(401);
    expect(visitor.error).toMatchObject({ code: '42501', message: 'permission denied for function members_only' });
    expect((await a.client.rpc('members_only')).data).toBe('secret');
  });

  test('GET runs read-only: a write in it answers 405 and nothing is stored', async () => {
    const res = await t.anon().rpc('log_note', { note: 'via get' }, { get: true });
    expect(res.status).toBe(405);
    expect(res.error).toMatchObject({ code: '25006' });
    const rows = await t.stack.ctx.db.query('select 1 from public.rpc_log where note = $1::text', ['via get']);
    expect(rows).toHaveLength(0);
  });
});

describe('errors', () => {
  test('an unknown function: 404 PGRST202 with PostgREST message and details', async () => {
    const res = await t.anon().rpc('no_such_fn', { b: 1, a: 2 });
    expect(res.status).toBe(404);
    expect(res.error).toEqual({
      code: 'PGRST202',
      details:
        'Searched for the function public.no_such_fn with parameters a, b or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
      hint: null,
      message: 'Could not find the function public.no_such_fn(a, b) in the schema cache',
    });
    const none = await t.anon().rpc('no_such_fn', {}, { get: true });
    expect(none.error).toMatchObject({
      message: 'Could not find the function public.no_such_fn without parameters in the schema cache',
      details:
        'Searched for the function public.no_such_fn without parameters, but no matches were found in the schema cache.',
    });
  });

  test('wrong argument names: 404 with a hint naming the parameters that exist', async () => {
    const res = await t.anon().rpc('add_them', { x: 1 });
    expect(res.status).toBe(404);
    expect(res.error).toMatchObject({
      code: 'PGRST202',
      message: 'Could not find the function public.add_them(x) in the schema cache',
      hint: 'Perhaps you meant to call the function public.add_them(a, b)',
    });
  });

  test('a value of the wrong type is Postgres error 22P02, 400; trigger functions are not callable', async () => {
    const res = await t.anon().rpc('add_them', { a: 'one', b: 2 });
    expect(res.status).toBe(400);
    expect(res.error?.code).toBe('22P02');
    const trigger = await t.admin().rpc('handle_new_user');
    expect(trigger.status).toBe(404);
  });
});
