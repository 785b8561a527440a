import { describe, expect, it } from 'vitest';
import { AUTH_LABEL_KEYS, type AuthLabels } from '../../src/islands/auth/labels.ts';
import { readAuthEntry } from '../../src/lib/auth-forms.ts';
import {
  type Account,
  type AuthFlowDeps,
  type AuthFlowState,
  createAuthFlow,
  tabForKey,
} from '../../src/stores/auth-flow.ts';

// Each label is its own key, so a toast reads as the key it was built from.
const labels = Object.fromEntries(AUTH_LABEL_KEYS.map((k) => [k, k])) as AuthLabels;

const ann: Account = { id: 'ann-id', email: 'ann@example.com' };
const bob: Account = { id: 'bob-id', email: 'bob@example.com' };
const eve: Account = { id: 'eve-id', email: 'eve@example.com' };

/** What the auth service knows: the stored session, the link's account, the member's assurance level. */
interface World {
  /** This browser's session. */
  session?: Account | null;
  /** The account GET /user reads from the link's access token; null: refused (used, expired). */
  link?: Account | null;
  /** The account the link's refresh token turns out to be; 'refused' when setSession fails. Default: `link`. */
  refresh?: Account | 'refused';
  /** PKCE exchange accepted. */
  exchange?: boolean;
  /** The session is aal1 of a member with a verified factor; 'unreadable' when the level cannot be read. */
  owes?: boolean | 'unreadable';
  /** The stored session cannot be read at all. */
  sessionThrows?: boolean;
}

/** A flow over `world`, with what it did to the page in order: the address, toasts, queued toasts, leaving, sign-outs. */
function harness(world: World) {
  const did: string[] = [];
  let session = world.session ?? null;
  const deps: AuthFlowDeps = {
    async signedIn() {
      if (world.sessionThrows) throw new Error('storage unreadable');
      return session;
    },
    async linkAccount() {
      return world.link ?? null;
    },
    async setSession() {
      const to = world.refresh ?? world.link ?? null;
      if (to === 'refused' || !to) return null;
      session = to;
      return { userId: to.id };
    },
    async exchangeCode() {
      if (world.exchange) session = ann;
      return world.exchange ?? false;
    },
    async owesSecondFactor() {
      if (world.owes === 'unreadable') throw new Error('aal unreadable');
      return world.owes ?? false;
    },
    async signOutLocal() {
      did.push('sign out');
      session = null;
    },
    showUrl: (mode) => did.push(`url ${mode}`),
    toast: (t) => did.push(`toast ${t.title}`),
    queueToast: (t) => did.push(`queue ${t.title}`),
    leave: (path) => did.push(`leave ${path}`),
  };
  const flow = createAuthFlow(deps, labels);
  return { flow, deps, did, session: () => session, state: (): AuthFlowState => flow.$state.get() };
}

/** Opens /auth at `address` (query and fragment) in `world`. */
async function open(address: string, world: World = {}) {
  const h = harness(world);
  const [search, hash = ''] = address.split('#');
  await h.flow.start(readAuthEntry(search, hash ? `#${hash}` : ''));
  return h;
}

const RECOVERY = '#access_token=at&refresh_token=rt&expires_in=3600&type=recovery';
const EXPIRED = '#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired';

describe('opening /auth: address × session × assurance level → mode, and what the page did', () => {
  it.each<[string, string, World, AuthFlowState['mode'], string[]]>([
    // Tabs and code steps.
    ['no query, signed out', '', {}, 'signin', []],
    ['?tab=signup, signed out', '?tab=signup', {}, 'signup', []],
    ['?tab=confirm, signed out', '?tab=confirm', {}, 'confirm', []],
    ['?tab=resend (the older name), signed out', '?tab=resend', {}, 'confirm', []],
    ['?tab=recover, signed out', '?tab=recover', {}, 'recover', []],
    ['?tab=signin, signed in at aal1 without a factor', '?tab=signin', { session: ann }, null, ['leave /']],
    ['?tab=confirm, signed in', '?tab=confirm', { session: ann }, null, ['leave /']],
    ['?tab=signup, signed in at aal1 with a factor', '?tab=signup', { session: ann, owes: true }, 'mfa', ['url mfa']],
    [
      '?tab=signin, signed in, level unreadable',
      '?tab=signin',
      { session: ann, owes: 'unreadable' },
      null,
      ['leave /'],
    ],
    ['?tab=signup, the stored session unreadable', '?tab=signup', { sessionThrows: true }, 'signin', []],
    // The two-factor step: only for a session that owes its code.
    ['?tab=mfa, signed out', '?tab=mfa', {}, 'signin', ['url signin']],
    ['?tab=mfa, signed in at aal1 with a factor', '?tab=mfa', { session: ann, owes: true }, 'mfa', ['url mfa']],
    ['?tab=mfa, signed in at aal2', '?tab=mfa', { session: ann }, null, ['leave /dashboard']],
    // ?tab=reset: the session the link gave, or the code step before it.
    ['?tab=reset, signed in at aal1', '?tab=reset', { session: ann }, 'reset', ['url reset']],
    ['?tab=reset, signed in at aal1 with a factor', '?tab=reset', { session: ann, owes: true }, 'mfa', ['url mfa']],
    ['?tab=reset, level unreadable', '?tab=reset', { session: ann, owes: 'unreadable' }, 'reset', ['url reset']],
    // A used or expired link, whoever is signed in.
    ['expired link, signed out', `?${EXPIRED}`, {}, 'signin', ['toast linkExpiredTitle', 'url signin']],
    ['expired link, signed in', EXPIRED, { session: ann }, 'signin', ['toast linkExpiredTitle', 'url signin']],
    ['?error_code in the query', '?error_code=otp_expired', {}, 'signin', ['toast linkExpiredTitle', 'url signin']],
    [
      'recovery fragment without a refresh token',
      '#access_token=at&type=recovery',
      {},
      'signin',
      ['toast linkExpiredTitle', 'url signin'],
    ],
    // Tokens of anything but a recovery link are never used.
    [
      'magic-link tokens, signed out',
      '#access_token=at&refresh_token=rt&type=magiclink',
      { link: eve },
      'signin',
      ['url signin', 'toast linkRefusedTitle'],
    ],
    [
      'tokens without a type, signed in',
      '#access_token=at&refresh_token=rt',
      { session: ann, link: eve },
      null,
      ['url signin', 'queue linkRefusedTitle', 'leave /'],
    ],
    [
      'a token hash of a magic link, signed out',
      '?token_hash=h&type=magiclink',
      {},
      'signin',
      ['url signin', 'toast linkRefusedTitle'],
    ],
    // The confirmation mail's link: the password form only, nothing verified, even when signed in.
    ['confirmation link, signed out', '?tab=confirm&token_hash=h&type=signup', {}, 'choose', []],
    ['confirmation link, signed in', '?tab=confirm&token_hash=h&type=signup', { session: bob }, 'choose', []],
    // A PKCE reset code.
    ['?code, accepted', '?code=c', { exchange: true }, 'reset', ['url reset']],
    ['?code, accepted, member with a factor', '?code=c', { exchange: true, owes: true }, 'mfa', ['url mfa']],
    ['?code, refused', '?code=c', { exchange: false }, 'signin', ['toast linkExpiredTitle', 'url signin']],
    // A recovery link's tokens.
    ['recovery link, signed out', RECOVERY, { link: ann }, 'reset', ['url reset', 'url reset', 'url reset']],
    [
      'recovery link of the signed-in account',
      RECOVERY,
      { session: ann, link: ann },
      'reset',
      ['url reset', 'url reset', 'url reset'],
    ],
    [
      'recovery link, member with a factor',
      RECOVERY,
      { link: ann, owes: true },
      'mfa',
      ['url reset', 'url reset', 'url mfa'],
    ],
    [
      'recovery link used or expired (GET /user refuses it)',
      RECOVERY,
      { session: ann, link: null },
      'signin',
      ['url reset', 'toast linkExpiredTitle', 'url signin'],
    ],
    [
      "recovery link whose refresh token is another account's",
      RECOVERY,
      { link: ann, refresh: eve },
      'signin',
      ['url reset', 'sign out', 'toast linkExpiredTitle', 'url signin'],
    ],
    [
      'recovery link whose session the service refuses',
      RECOVERY,
      { link: ann, refresh: 'refused' },
      'signin',
      ['url reset', 'toast linkExpiredTitle', 'url signin'],
    ],
  ])('%s', async (_name, address, world, mode, did) => {
    const h = await open(address, world);
    expect(h.state().mode).toBe(mode);
    expect(h.did).toEqual(did);
    expect(h.state().otherAccount).toBeNull();
  });

  it('a confirmation link becomes what the password form confirms, the token left in the address', async () => {
    const h = await open('?tab=confirm&token_hash=abc123&type=signup');
    expect(h.state().confirmTarget).toEqual({ proof: { tokenHash: 'abc123' }, via: 'link' });
  });

  it('a recovery link of another account than the signed-in one asks first, naming both, and switches nothing', async () => {
    const h = await open(RECOVERY, { session: bob, link: ann });
    expect(h.state()).toMatchObject({
      mode: null,
      otherAccount: { current: bob.email, link: ann, tokens: { access_token: 'at', refresh_token: 'rt' } },
    });
    expect(h.did).toEqual(['url reset']);
    expect(h.session()).toEqual(bob);
  });
});

describe('the answer to "Reset the password of another account?"', () => {
  it('Stay signed in: on to / with the same session', async () => {
    const h = await open(RECOVERY, { session: bob, link: ann });
    await h.flow.answerOtherAccount(false);
    expect(h.did).toEqual(['url reset', 'leave /']);
    expect(h.session()).toEqual(bob);
  });

  it.each<[string, World, AuthFlowState['mode'], string[], Account | null]>([
    ['the reset form', { session: bob, link: ann }, 'reset', ['sign out', 'url reset', 'url reset'], ann],
    [
      'the code step first, for a member with a factor',
      { session: bob, link: ann, owes: true },
      'mfa',
      ['sign out', 'url reset', 'url mfa'],
      ann,
    ],
    [
      'expired when the refresh token is another account',
      { session: bob, link: ann, refresh: eve },
      'signin',
      ['sign out', 'sign out', 'toast linkExpiredTitle', 'url signin'],
      null,
    ],
    [
      'expired when the service refuses the tokens',
      { session: bob, link: ann, refresh: 'refused' },
      'signin',
      ['sign out', 'toast linkExpiredTitle', 'url signin'],
      null,
    ],
  ])('Sign out and reset: %s', async (_name, world, mode, did, session) => {
    const h = await open(RECOVERY, world);
    h.did.length = 0;
    await h.flow.answerOtherAccount(true);
    expect(h.state()).toMatchObject({ mode, otherAccount: null });
    expect(h.did).toEqual(did);
    expect(h.session()).toEqual(session);
  });

  it('with no question pending, an answer does nothing', async () => {
    const h = await open('?tab=signin');
    await h.flow.answerOtherAccount(true);
    await h.flow.answerOtherAccount(false);
    expect(h.did).toEqual([]);
  });
});

describe('leaving the reset form', () => {
  it.each<[string, string, World, boolean, string[]]>([
    ['Cancel after a recovery link drops its session', RECOVERY, { link: ann }, false, ['sign out', 'url signin']],
    ['Cancel after a PKCE code drops its session', '?code=c', { exchange: true }, false, ['sign out', 'url signin']],
    [
      'a link found expired on saving: toast, session dropped',
      RECOVERY,
      { link: ann },
      true,
      ['toast linkExpiredTitle', 'sign out', 'url signin'],
    ],
    // ?tab=reset with a session this page did not start (a reload after the link): it is kept.
    ['Cancel on ?tab=reset keeps the session', '?tab=reset', { session: ann }, false, ['url signin']],
    ['expired on ?tab=reset', '?tab=reset', {}, true, ['toast linkExpiredTitle', 'url signin']],
  ])('%s', async (_name, address, world, expiredLink, did) => {
    const h = await open(address, world);
    h.did.length = 0;
    await h.flow.leaveReset(expiredLink);
    expect(h.state().mode).toBe('signin');
    expect(h.did).toEqual(did);
  });

  it('after a PASSWORD_RECOVERY event the session is dropped too', async () => {
    const h = await open('?tab=reset', { session: ann });
    h.flow.recoveryEvent();
    await expect.poll(() => h.did).toEqual(['url reset', 'url reset']);
    await h.flow.leaveReset(false);
    expect(h.did.slice(2)).toEqual(['sign out', 'url signin']);
  });

  it('after a reset code: the reset form (or the code step first), and Cancel drops its session', async () => {
    const h = await open('?tab=recover', { owes: true });
    await h.flow.recovered();
    expect(h.state().mode).toBe('mfa');
    h.flow.secondFactorVerified();
    expect(h.state().mode).toBe('reset');
    await h.flow.leaveReset(false);
    expect(h.did).toEqual(['url mfa', 'url reset', 'sign out', 'url signin']);
  });
});

describe('the two-factor step', () => {
  it('after Sign In, the code: welcome, on to the dashboard', async () => {
    const h = await open('');
    h.flow.secondFactor();
    expect(h.state().mode).toBe('mfa');
    h.flow.secondFactorVerified();
    expect(h.did).toEqual(['url mfa', 'queue welcomeBack', 'leave /dashboard']);
  });

  it('after Sign In, no verified factor after all: the dashboard, no welcome', async () => {
    const h = await open('');
    h.flow.secondFactor();
    h.flow.noSecondFactor();
    expect(h.did).toEqual(['url mfa', 'leave /dashboard']);
  });

  it('after a recovery link: the code leads to the reset form, not the dashboard', async () => {
    const h = await open(RECOVERY, { link: ann, owes: true });
    h.flow.secondFactorVerified();
    expect(h.state().mode).toBe('reset');
    expect(h.did).toEqual(['url reset', 'url reset', 'url mfa', 'url reset']);
  });

  it('after a recovery link with no factor left: the reset form', async () => {
    const h = await open(RECOVERY, { link: ann, owes: true });
    h.flow.noSecondFactor();
    expect(h.state().mode).toBe('reset');
  });

  it('Cancel signs out; a later sign-in’s code goes to the dashboard, not to the old reset form', async () => {
    const h = await open(RECOVERY, { link: ann, owes: true });
    await h.flow.cancelSecondFactor();
    expect(h.state().mode).toBe('signin');
    expect(h.session()).toBeNull();
    h.flow.secondFactor();
    h.flow.secondFactorVerified();
    expect(h.did.slice(3)).toEqual(['sign out', 'url signin', 'url mfa', 'queue welcomeBack', 'leave /dashboard']);
  });

  it('Cancel after a recovery link: leaving a later reset form signs nobody out again', async () => {
    const h = await open(RECOVERY, { link: ann, owes: true });
    await h.flow.cancelSecondFactor();
    h.did.length = 0;
    await h.flow.leaveReset(false);
    expect(h.did).toEqual(['url signin']);
  });
});

describe('the code steps and the password form', () => {
  it('Create Account opens the confirmation step with the address and the password typed', async () => {
    const h = await open('?tab=signup');
    h.flow.openCodeStep('confirm', 'ann@example.com', 'Secret-pass1');
    expect(h.state()).toMatchObject({
      mode: 'confirm',
      codeEmail: 'ann@example.com',
      knownPassword: { email: 'ann@example.com', password: 'Secret-pass1' },
      codeError: '',
    });
    expect(h.did).toEqual(['url confirm']);
  });

  it('Forgot password? opens the reset-code step with the address only', async () => {
    const h = await open('');
    h.flow.openCodeStep('recover', 'ann@example.com');
    expect(h.state()).toMatchObject({ mode: 'recover', codeEmail: 'ann@example.com', knownPassword: null });
    expect(h.did).toEqual(['url recover']);
  });

  it('a code without a known password opens the form; a refused code returns to the step with the password kept', async () => {
    const h = await open('?tab=confirm');
    h.flow.choosePassword({ proof: { email: 'ann@example.com', code: '123456' }, via: 'code' });
    expect(h.state()).toMatchObject({ mode: 'choose', codeEmail: 'ann@example.com' });
    h.flow.confirmCodeRefused('codeWrong', 'Chosen-pass1');
    expect(h.state()).toMatchObject({
      mode: 'confirm',
      codeError: 'codeWrong',
      knownPassword: { email: 'ann@example.com', password: 'Chosen-pass1' },
    });
  });

  it('Cancel on the password form: the Sign In tab, nothing left to confirm', async () => {
    const h = await open('?tab=confirm&token_hash=h&type=signup');
    h.flow.leaveConfirm();
    expect(h.state()).toMatchObject({ mode: 'signin', confirmTarget: null });
    expect(h.did).toEqual(['url signin']);
  });
});

describe('answers that arrive late', () => {
  it('a PASSWORD_RECOVERY event before the session is read: the reset form stays, no redirect', async () => {
    let release: (a: Account) => void = () => {};
    const h = harness({});
    // The stored session answers only after the event.
    const flow = createAuthFlow({ ...h.deps, signedIn: () => new Promise<Account>((r) => (release = r)) }, labels);
    const started = flow.start(readAuthEntry('?tab=signin', ''));
    flow.recoveryEvent();
    await expect.poll(() => flow.$state.get().mode).toBe('reset');
    release(ann);
    await started;
    expect(flow.$state.get().mode).toBe('reset');
    expect(h.did).toEqual(['url reset']);
  });

  it('a page gone before the link is read shows nothing more', async () => {
    let release: (a: Account | null) => void = () => {};
    const h = harness({ link: ann });
    const flow = createAuthFlow(
      { ...h.deps, linkAccount: () => new Promise<Account | null>((r) => (release = r)) },
      labels,
    );
    const started = flow.start(readAuthEntry('', RECOVERY));
    flow.stop();
    release(null);
    await started;
    expect(flow.$state.get().mode).toBeNull();
    expect(h.did).toEqual(['url reset']);
  });
});

describe('tabForKey', () => {
  it.each([
    ['ArrowRight', 'signin', 'signup'],
    ['ArrowRight', 'signup', 'signin'],
    ['ArrowLeft', 'signin', 'signup'],
    ['ArrowLeft', 'signup', 'signin'],
    ['Home', 'signup', 'signin'],
    ['End', 'signin', 'signup'],
    ['Enter', 'signin', undefined],
  ] as const)('%s from %s → %s', (key, tab, next) => {
    expect(tabForKey(key, tab)).toBe(next);
  });
});
