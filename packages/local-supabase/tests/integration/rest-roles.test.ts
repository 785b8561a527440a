// REST under the API roles as hosted Supabase runs it: the statement time limits hosted sets (anon 3 s,
// authenticated 8 s), the legacy per-claim settings emptied for every request, and on PostgreSQL a login
// that can become only the three API roles, never the owner.
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { createMember, type Member } from '../../testing/rest-helpers.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

const onPostgres = inject('template').kind === 'postgres';
let t: TestStack;
let a: Member;
let b: Member;

beforeAll(async () => {
  t = await startTestStack();
  await t.stack.ctx.db.exec(`
    create function public.rr_timeout() returns text language sql stable
      as $$ select current_setting('statement_timeout') $$;
    create function public.rr_who() returns text language sql stable
      as $$ select session_user || ' / ' || current_user $$;
    create function public.rr_escalate() returns bigint language plpgsql
      as $$ begin perform set_config('role', 'postgres', true); return (select count(*) from auth.users); end $$;
    create function public.rr_sleep(seconds float8) returns text language sql volatile
      as $$ select pg_sleep(seconds)::text $$;`);
  a = await createMember(t, 'roles-a');
  b = await createMember(t, 'roles-b');
});
afterAll(() => t?.stop());

const rest = (path: string, token: string) =>
  fetch(`${t.url}/rest/v1/${path}`, { headers: { apikey: t.config.anonKey, Authorization: `Bearer ${token}` } });

describe('statement_timeout as hosted Supabase sets it', () => {
  test('anon 3s and authenticated 8s inside REST requests', async () => {
    expect(await (await rest('rpc/rr_timeout', t.config.anonKey)).json()).toBe('3s');
    expect(await (await rest('rpc/rr_timeout', b.accessToken)).json()).toBe('8s');
  });

  test.skipIf(!onPostgres)('an anon query running longer than 3 s is cancelled: 57014, HTTP 500', async () => {
    // 5 s lies between anon's 3 s and authenticated's 8 s: only anon's own timeout cancels it, however long
    // the request takes on a loaded machine.
    const res = await rest('rpc/rr_sleep?seconds=5', t.config.anonKey);
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ code: '57014', message: 'canceling statement due to statement timeout' });
  });
});

describe('a session-level setting cannot leak into requests', () => {
  test('request.jwt.claim.sub set for the session (as from psql) does not make B act as A', async () => {
    // On PGlite this is the one session every request shares; on PostgreSQL one of the owner's connections.
    await t.stack.ctx.db.exec(`set request.jwt.claim.sub = '${a.id}'`);
    try {
      const res = await rest('profiles?select=email', b.accessToken);
      expect(await res.json()).toEqual([{ email: b.email }]);
    } finally {
      await t.stack.ctx.db.exec('reset request.jwt.claim.sub');
    }
  });
});

describe.skipIf(!onPostgres)('the REST login on PostgreSQL', () => {
  test('SQL a request reaches runs as authenticator, not the owner', async () => {
    expect(await (await rest('rpc/rr_who', t.config.anonKey)).json()).toBe('authenticator / anon');
  });

  test('set role postgres from an RPC fails and reads nothing', async () => {
    const res = await rest('rpc/rr_escalate', t.config.anonKey);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: '42501', message: 'permission denied to set role "postgres"' });
  });
});
