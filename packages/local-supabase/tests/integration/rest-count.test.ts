// Prefer: count=planned|estimated through supabase-js: the planner's estimate (EXPLAIN as the request's
// role) for planned; exact up to [api] max_rows (1000) and the estimate past it for estimated.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;

beforeAll(async () => {
  t = await startTestStack();
  await t.stack.ctx.db.exec(`
    create table public.count_small (id int primary key);
    create table public.count_big (id int primary key, odd boolean not null);
    insert into public.count_small select generate_series(1, 40);
    insert into public.count_big select i, i % 2 = 1 from generate_series(1, 1500) i;
    grant select on public.count_small, public.count_big to anon;
    analyze public.count_small;
    analyze public.count_big;`);
});
afterAll(() => t?.stop());

/** What the planner itself estimates for the rows of `sql`. */
async function estimate(sql: string): Promise<number> {
  const [row] = await t.stack.ctx.db.query<{ 'QUERY PLAN': unknown }>(`explain (format json) ${sql}`);
  const doc = row['QUERY PLAN'];
  return (typeof doc === 'string' ? JSON.parse(doc) : doc)[0].Plan['Plan Rows'];
}

describe('count=planned', () => {
  test("the count is the planner's estimate; a head request over a range answers 206", async () => {
    const expected = await estimate('select 1 from public.count_big where odd');
    const res = await t
      .anon()
      .from('count_big')
      .select('*', { count: 'planned', head: true })
      .eq('odd', true)
      .range(0, 9);
    expect(res.error).toBeNull();
    expect(res.count).toBe(expected);
    expect(res.count).toBeGreaterThan(10);
    expect(res.status).toBe(206);
  });
});

describe('count=estimated', () => {
  test('within max_rows: the exact count', async () => {
    const res = await t.anon().from('count_small').select('id', { count: 'estimated' }).gt('id', 30);
    expect(res.count).toBe(10);
    expect(res.data).toHaveLength(10);
    expect(res.status).toBe(200);
  });

  test('past max_rows: the estimate', async () => {
    const expected = await estimate('select 1 from public.count_big');
    const res = await t.anon().from('count_big').select('id', { count: 'estimated', head: true });
    expect(res.count).toBe(expected);
    expect(res.count).toBeGreaterThan(1000);
    expect(res.status).toBe(206);
  });
});
