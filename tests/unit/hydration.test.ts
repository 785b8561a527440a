import { expect, test } from 'vitest';
import { yieldBeforeHydrate } from '../../integrations/client-directives/next-task.ts';

test('an island hydrates in a later task than the one that loaded its code', async () => {
  const order: string[] = [];
  const load = yieldBeforeHydrate(async () => {
    order.push('code loaded');
    // Work the browser queued meanwhile (a paint, a tap): it runs before the hydration, not after.
    setTimeout(() => order.push('queued task'), 0);
    return async () => {
      order.push('hydrated');
    };
  });
  await (await load())();
  expect(order).toEqual(['code loaded', 'queued task', 'hydrated']);
});
