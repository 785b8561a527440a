import { describe, expect, it } from 'vitest';
import { fill } from '../../src/lib/fill-template.ts';

describe('fill', () => {
  it('replaces known placeholders and leaves unknown ones', () => {
    expect(fill('{n} of {total}', { n: 2, total: 5 })).toBe('2 of 5');
    expect(fill('{won} of {total} trades won, {x}', { won: 50, total: 68 })).toBe('50 of 68 trades won, {x}');
  });
});
