import { describe, expect, it } from 'vitest';
import {
  cleanTotp,
  isTotpFormat,
  needsSecondFactor,
  qrImageSrc,
  totpFailure,
  verifiedTotpFactors,
} from '../../src/lib/mfa.ts';

describe('needsSecondFactor', () => {
  it.each([
    ['a password session of a member with a verified factor', { currentLevel: 'aal1', nextLevel: 'aal2' }, true],
    ['a session that gave its code', { currentLevel: 'aal2', nextLevel: 'aal2' }, false],
    ['a member without a factor', { currentLevel: 'aal1', nextLevel: 'aal1' }, false],
    ['no session', { currentLevel: null, nextLevel: null }, false],
    ['a level that could not be read', null, false],
  ])('%s', (_name, level, expected) => {
    expect(needsSecondFactor(level)).toBe(expected);
  });
});

describe('the code field', () => {
  it('keeps the digits of a pasted code', () => {
    expect(cleanTotp(' 123 456 ')).toBe('123456');
    expect(cleanTotp('123-456')).toBe('123456');
  });
  it('sends six digits only', () => {
    expect(isTotpFormat('123456')).toBe(true);
    expect(isTotpFormat('12345')).toBe(false);
    expect(isTotpFormat('1234567')).toBe(false);
    expect(isTotpFormat('')).toBe(false);
  });
});

describe('totpFailure', () => {
  it('a wrong or used code gets the page words', () => {
    expect(totpFailure({ code: 'mfa_verification_failed', message: 'Invalid TOTP code entered' })).toEqual({
      kind: 'wrong',
    });
  });
  it('decides on the code, not on the words', () => {
    expect(totpFailure({ message: 'Invalid TOTP code entered' })).toEqual({
      kind: 'failed',
      text: 'Invalid TOTP code entered',
    });
  });
  it("anything else keeps the service's words", () => {
    expect(totpFailure({ code: 'too_many_requests', message: 'Too many MFA verification attempts' })).toEqual({
      kind: 'failed',
      text: 'Too many MFA verification attempts',
    });
    expect(totpFailure({})).toEqual({ kind: 'failed' });
  });
});

describe('verifiedTotpFactors', () => {
  it('leaves out an enrolment that never got its first code', () => {
    const factors = [
      { id: 'a', status: 'unverified', factor_type: 'totp' },
      { id: 'b', status: 'verified', factor_type: 'totp' },
      { id: 'c', status: 'verified', factor_type: 'phone' },
    ];
    expect(verifiedTotpFactors(factors).map((f) => f.id)).toEqual(['b']);
    expect(verifiedTotpFactors(undefined)).toEqual([]);
  });
});

describe('qrImageSrc', () => {
  it("percent-encodes supabase-js's raw SVG, so a # colour does not cut it short", () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><path fill="#ffffff" d="M0 0h25v25H0z"/></svg>';
    const src = qrImageSrc(`data:image/svg+xml;utf-8,${svg}`);
    expect(src).not.toContain('#');
    expect(src.startsWith('data:image/svg+xml;charset=utf-8,')).toBe(true);
    expect(decodeURIComponent(src.slice(src.indexOf(',') + 1))).toBe(svg);
  });
  it('keeps any other source as it is', () => {
    expect(qrImageSrc('data:image/png;base64,iVBORw0KGgo=')).toBe('data:image/png;base64,iVBORw0KGgo=');
    expect(qrImageSrc('data:image/svg+xml;utf-8,%3Csvg%3E')).toBe('data:image/svg+xml;utf-8,%3Csvg%3E');
  });
});
