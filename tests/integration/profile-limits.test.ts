// Names and user metadata within bounds whatever the client: profile names are 1 to 100 characters without
// control characters (check constraints: a REST update that breaks them is 400 code 23514 and changes
// nothing), a direct sign-up's odd names reach the profile cleaned, and user metadata is capped at 4096
// bytes (the stack answers 400 before writing; a trigger on auth.users refuses it on every path).
import { confirmedUser, GOOD_PASSWORD, raw, startTestStack, type TestStack, uniqueEmail } from 'local-supabase/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Database, Tables } from '../../supabase/database.types.ts';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t?.stop());

async function profile(userId: string) {
  const rows = await t.stack.ctx.db.query<Pick<Tables<'profiles'>, 'first_name' | 'last_name'>>(
    'select first_name, last_name from public.profiles where user_id = $1',
    [userId],
  );
  return rows[0];
}

async function metadata(email: string) {
  const rows = await t.stack.ctx.db.query<{ raw_user_meta_data: Record<string, unknown> }>(
    'select raw_user_meta_data from auth.users where lower(email) = lower($1)',
    [email],
  );
  return rows[0]?.raw_user_meta_data;
}

async function signedInMember() {
  const { email, password, user } = await confirmedUser(t, uniqueEmail('names'), GOOD_PASSWORD, {
    first_name: 'Ada',
    last_name: 'Lovelace',
  });
  const client = t.anon<Database>();
  const { error } = await client.auth.signInWithPassword({ email, password });
  expect(error).toBeNull();
  return { client, user, email };
}

describe('profile names through REST', () => {
  test.each([
    ['101 characters', 'a'.repeat(101)],
    ['only a tab', '\t'],
    ['a control character', 'Ada\u0007'],
    ['a newline', 'Ada\nLovelace'],
    ['DEL', 'Ada\u007f'],
  ])('a first name with %s: 400 code 23514, nothing changes', async (_, name) => {
    const { client, user } = await signedInMember();
    const { error, status } = await client.from('profiles').update({ first_name: name }).eq('user_id', user.id);
    expect(status).toBe(400);
    expect(error?.code).toBe('23514');
    expect(error?.message).toContain('profiles_first_name_check');
    expect(await profile(user.id)).toEqual({ first_name: 'Ada', last_name: 'Lovelace' });
  });

  test('an empty name (what Settings saves for a cleared field) is stored as no name (NULL)', async () => {
    const { client, user } = await signedInMember();
    const { error } = await client.from('profiles').update({ first_name: '' }).eq('user_id', user.id);
    expect(error).toBeNull();
    expect(await profile(user.id)).toEqual({ first_name: null, last_name: 'Lovelace' });
  });

  test('a last name of 100 characters, letters from any script, is stored', async () => {
    const { client, user } = await signedInMember();
    const name = 'Ł'.repeat(100);
    const { error } = await client.from('profiles').update({ last_name: name }).eq('user_id', user.id);
    expect(error).toBeNull();
    expect((await profile(user.id)).last_name).toBe(name);
    const { error: tooLong, status } = await client
      .from('profiles')
      .update({ last_name: `${name}x` })
      .eq('user_id', user.id);
    expect(status).toBe(400);
    expect(tooLong?.code).toBe('23514');
    expect((await profile(user.id)).last_name).toBe(name);
  });
});

describe('names from a direct sign-up', () => {
  test('control characters and overlong names reach the profile cleaned, within the rule', async () => {
    const email = uniqueEmail('odd-names');
    const res = await raw(t, '/signup', {
      body: {
        email,
        password: GOOD_PASSWORD,
        data: { first_name: ` Ada\u0007\n\tByron ${'x'.repeat(300)}`, last_name: '\u0001\u0002 ' },
      },
    });
    expect(res.status).toBe(200);
    const row = await profile(res.body.id);
    expect(row.first_name).toBe(`Ada Byron ${'x'.repeat(90)}`);
    expect(row.last_name).toBeNull();
  });
});

describe('user metadata size', () => {
  const big = { first_name: 'Ada', note: 'x'.repeat(5000) };

  test('sign-up with more than 4096 bytes of metadata: 400, no user, no mail', async () => {
    const email = uniqueEmail('big-meta');
    const res = await raw(t, '/signup', { body: { email, password: GOOD_PASSWORD, data: big } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 'validation_failed',
      message: 'User metadata is too large: at most 4096 bytes',
    });
    expect(await metadata(email)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 300));
    expect((await t.mail.list()).filter((m) => m.To.some((a) => a.Address === email))).toEqual([]);
  });

  test('metadata just under the cap is accepted', async () => {
    const email = uniqueEmail('fits-meta');
    // {"note": "…"} is 12 bytes around the value.
    const res = await raw(t, '/signup', {
      body: { email, password: GOOD_PASSWORD, data: { note: 'y'.repeat(4096 - 12) } },
    });
    expect(res.status).toBe(200);
  });

  test("a member's update that would pass 4096 bytes: 400, metadata unchanged", async () => {
    const { client, email } = await signedInMember();
    const { data, error } = await client.auth.updateUser({ data: { note: 'x'.repeat(3000) } });
    expect(error).toBeNull();
    expect(data.user?.user_metadata.note).toHaveLength(3000);
    const again = await client.auth.updateUser({ data: { other: 'z'.repeat(2000) } });
    expect(again.error).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(again.error?.message).toBe('User metadata is too large: at most 4096 bytes');
    expect(await metadata(email)).toEqual({ first_name: 'Ada', last_name: 'Lovelace', note: 'x'.repeat(3000) });
  });

  test('the database refuses it on any other path too (admin API): nothing is kept', async () => {
    const email = uniqueEmail('admin-big-meta');
    const { data, error } = await t.admin().auth.admin.createUser({
      email,
      password: GOOD_PASSWORD,
      email_confirm: true,
      user_metadata: big,
    });
    expect(data.user).toBeNull();
    expect(error).not.toBeNull();
    expect(await metadata(email)).toBeUndefined();
  });
});
