import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t?.stop());

test('the gateway refuses a request without an API key as the hosted one does', async () => {
  const res = await fetch(`${t.url}/rest/v1/profiles`);
  expect(res.status).toBe(401);
  expect(await res.json()).toEqual({
    message: 'No API key found in request',
    hint: 'No `apikey` request header or url param was found.',
  });
});

test('health answers without a key', async () => {
  const res = await fetch(`${t.url}/auth/v1/health`);
  expect(res.status).toBe(200);
});
