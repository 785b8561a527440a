// What loadConfig takes from the environment (the settings a test sets through startTestStack's overrides instead).
import { expect, test } from 'vitest';
import { loadConfig } from '../../src/config.ts';

test('REALTIME: Realtime runs unless it says off or false', () => {
  const realtime = (value?: string) => loadConfig(value === undefined ? {} : { REALTIME: value }).realtime;
  expect([realtime(), realtime('on'), realtime('off'), realtime(' OFF '), realtime('false')]).toEqual([
    true,
    true,
    false,
    false,
    false,
  ]);
});
