import { describe, expect, test } from 'vitest';
import { localDate, localTime, relativeTime } from '../../src/lib/relative-time.ts';

const labels = { justNow: 'Just now', hoursAgo: '{n}h ago', dayAgo: '1 day ago' };
const now = new Date('2026-11-22T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const MIN = 60_000;
const HOUR = 60 * MIN;

describe('relativeTime', () => {
  test.each([
    ['published this instant', 0, 'Just now'],
    ['59 minutes ago', 59 * MIN, 'Just now'],
    ['59:59 ago', HOUR - 1000, 'Just now'],
    ['exactly 1 hour ago', HOUR, '1h ago'],
    ['1 h 59 min ago', 2 * HOUR - MIN, '1h ago'],
    ['5 hours ago', 5 * HOUR, '5h ago'],
    ['23 h 59 min ago', 24 * HOUR - MIN, '23h ago'],
    ['exactly 24 hours ago', 24 * HOUR, '1 day ago'],
    ['47 hours ago', 47 * HOUR, '1 day ago'],
    ['exactly 48 hours ago', 48 * HOUR, 'the date'],
    ['a month ago', 30 * 24 * HOUR, 'the date'],
    ['ten minutes in the future', -10 * MIN, 'Just now'],
  ])('%s', (_name, elapsed, expected) => {
    const published = ago(elapsed);
    const text = relativeTime(published, now, labels, (d) => `date ${d.toISOString()}`);
    expect(text).toBe(expected === 'the date' ? `date ${published.toISOString()}` : expected);
  });

  test('the date is the local date by default, as YYYY-MM-DD', () => {
    const published = new Date(2026, 0, 5, 23, 30);
    expect(relativeTime(published, new Date(2026, 1, 1), labels)).toBe('2026-01-05');
  });

  test.each([
    [new Date(2026, 10, 22, 9, 5, 59), '2026-11-22', '09:05'],
    [new Date(2026, 11, 31, 23, 59), '2026-12-31', '23:59'],
    [new Date(2027, 0, 1, 0, 0), '2027-01-01', '00:00'],
  ])('%s: local date %s, local time %s', (date, day, time) => {
    expect(localDate(date)).toBe(day);
    expect(localTime(date)).toBe(time);
  });
});
