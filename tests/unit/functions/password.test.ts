import { describe, expect, it } from 'vitest';
import { PASSWORD_SYMBOLS, passwordChecks, passwordMeetsRules } from '../../../supabase/functions/_shared/password.ts';

describe('passwordChecks', () => {
  it.each<[string, string, Partial<Record<string, boolean>>]>([
    ['empty', '', { length: false, lowercase: false, uppercase: false, digit: false, symbol: false }],
    ['7 characters', 'Abcde1!', { length: false, lowercase: true, uppercase: true, digit: true, symbol: true }],
    ['exactly 8', 'Abcdef1!', { length: true }],
    ['no lowercase', 'ABCDEF1!', { lowercase: false }],
    ['no uppercase', 'abcdef1!', { uppercase: false }],
    ['no digit', 'Abcdefg!', { digit: false }],
    ['no symbol', 'Abcdefg1', { symbol: false }],
    ['a space is not a symbol', 'Abcdef 1', { symbol: false }],
    ['£ is not in the auth service symbol set', 'Abcdef1£', { symbol: false }],
    ['multi-byte characters count as bytes', 'Aé1!ééé', { length: true }],
  ])('%s', (_name, password, expected) => {
    expect(passwordChecks(password)).toMatchObject(expected);
  });

  it.each([...PASSWORD_SYMBOLS])('accepts %s as a symbol', (symbol) => {
    expect(passwordChecks(`Abcdef1${symbol}`).symbol).toBe(true);
  });
});

describe('passwordMeetsRules', () => {
  it.each<[string, boolean]>([
    ['Abcdef1!', true],
    ['Tr4ding-Signals', true],
    ['abcdef1!', false],
    ['Abcdef1', false],
    [`Aa1!${'x'.repeat(68)}`, true],
    [`Aa1!${'x'.repeat(69)}`, false],
  ])('%s -> %s', (password, ok) => {
    expect(passwordMeetsRules(password)).toBe(ok);
  });
});
