import { describe, expect, it } from 'vitest';
import { type GateInput, type GateView, gateView } from '../../src/lib/member-gate.ts';

const member = { id: 'a1b2' };

describe('gateView', () => {
  it.each<[string, GateInput, boolean, boolean, GateView]>([
    ['nothing reported yet', {}, false, false, 'loading'],
    ['a storage guess without an event', { user: undefined }, false, false, 'loading'],
    ['nothing reported yet, page with a signed-out text', {}, true, false, 'loading'],
    ['INITIAL_SESSION with a member', { event: 'INITIAL_SESSION', user: member }, false, false, 'member'],
    ['TOKEN_REFRESHED with a member', { event: 'TOKEN_REFRESHED', user: member }, false, false, 'member'],
    ['INITIAL_SESSION without a session', { event: 'INITIAL_SESSION', user: null }, false, false, 'redirect'],
    ['signed out elsewhere', { event: 'SIGNED_OUT', user: null }, false, false, 'redirect'],
    ['Sign Out pressed here (it navigates)', { event: 'SIGNED_OUT', user: null }, false, true, 'loading'],
    ['no session, page with a signed-out text', { event: 'INITIAL_SESSION', user: null }, true, false, 'signed-out'],
    ['Sign Out on the page with a signed-out text', { event: 'SIGNED_OUT', user: null }, true, true, 'signed-out'],
    ['a member on the page with a signed-out text', { event: 'SIGNED_IN', user: member }, true, false, 'member'],
  ])('%s', (_name, auth, showSignedOut, signingOut, expected) => {
    expect(gateView(auth, { showSignedOut, signingOut, secondFactor: 'met' })).toBe(expected);
  });
});

describe('gateView and two-factor', () => {
  const signedIn = { event: 'SIGNED_IN', user: member };
  const page = { showSignedOut: false, signingOut: false };
  it('waits while the session level is read', () => {
    expect(gateView(signedIn, { ...page, secondFactor: 'checking' })).toBe('loading');
  });
  it('sends a password-only session of a member with a factor to the code step', () => {
    expect(gateView(signedIn, { ...page, secondFactor: 'needed' })).toBe('second-factor');
    expect(gateView(signedIn, { showSignedOut: true, signingOut: false, secondFactor: 'needed' })).toBe(
      'second-factor',
    );
  });
  it('shows the page once the level is met', () => {
    expect(gateView(signedIn, { ...page, secondFactor: 'met' })).toBe('member');
  });
  it('a visitor without a session is not asked for a code', () => {
    expect(gateView({ event: 'INITIAL_SESSION', user: null }, { ...page, secondFactor: 'checking' })).toBe('redirect');
  });
});
