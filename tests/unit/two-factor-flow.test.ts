import { describe, expect, it } from 'vitest';
import { CAPTCHA_MESSAGE } from '../../src/lib/captcha.ts';
import {
  createTwoFactorFlow,
  type Factor,
  type Refusal,
  type TwoFactorDeps,
  type TwoFactorTexts,
} from '../../src/stores/two-factor-flow.ts';

// Each text is its own key, so what the field says reads as the key.
const texts: TwoFactorTexts = {
  twoFactorPasswordWrong: 'twoFactorPasswordWrong',
  sessionExpired: 'sessionExpired',
  twoFactorFailed: 'twoFactorFailed',
  twoFactorFormat: 'twoFactorFormat',
  twoFactorWrong: 'twoFactorWrong',
  twoFactorEnabledTitle: 'twoFactorEnabledTitle',
  twoFactorEnabled: 'twoFactorEnabled',
  twoFactorRemovedTitle: 'twoFactorRemovedTitle',
  twoFactorRemoved: 'twoFactorRemoved',
};

const PASSWORD = 'Right-pass1';
const CODE = '123456';
// As supabase-js hands it: the SVG unescaped, whose '#' would cut a data: URI short.
const QR = 'data:image/svg+xml;utf-8,<svg fill="#000000"></svg>';

/** What the auth service answers instead of its usual: a password check, enrolment, verification or removal refused. */
interface Service {
  factors?: Factor[];
  listFails?: boolean;
  checkRefusal?: Refusal;
  enrollFails?: boolean;
  verifyRefusal?: Refusal;
  verifyThrows?: boolean;
  unenrollRefusal?: Refusal;
  noClipboard?: boolean;
}

/** A flow over a small auth service of one member, with what was asked of it in order. */
function harness(service: Service = {}) {
  const asked: string[] = [];
  const toasts: string[] = [];
  let factors: Factor[] = [...(service.factors ?? [])];
  let clipboard = '';
  const deps: TwoFactorDeps = {
    async listFactors() {
      asked.push('list');
      if (service.listFails) throw new Error('GET /user failed');
      return factors;
    },
    async checkPassword(password, captchaToken) {
      asked.push(`check ${password}${captchaToken ? ` with ${captchaToken}` : ''}`);
      if (service.checkRefusal) return service.checkRefusal;
      return password === PASSWORD ? null : { code: 'invalid_credentials', message: 'Invalid login credentials' };
    },
    async enroll() {
      asked.push('enroll');
      if (service.enrollFails) throw new Error('too many factors');
      factors = [...factors, { id: 'new', status: 'unverified', factor_type: 'totp' }];
      return { id: 'new', qrCode: QR, secret: 'SETUPKEY' };
    },
    async unenroll(id) {
      asked.push(`unenroll ${id}`);
      if (service.unenrollRefusal) return service.unenrollRefusal;
      factors = factors.filter((f) => f.id !== id);
      return null;
    },
    async verify(id, code) {
      asked.push(`verify ${id} ${code}`);
      if (service.verifyThrows) throw new Error('network');
      if (service.verifyRefusal) return service.verifyRefusal;
      if (code !== CODE) return { code: 'mfa_verification_failed', message: 'Invalid TOTP code entered' };
      factors = factors.map((f) => (f.id === id ? { ...f, status: 'verified' } : f));
      return null;
    },
    async copy(text) {
      if (service.noClipboard) throw new Error('NotAllowedError');
      clipboard = text;
    },
    toast: (t) => toasts.push(`${t.title}: ${t.description}`),
  };
  const flow = createTwoFactorFlow(deps, texts);
  return { flow, asked, toasts, state: () => flow.$state.get(), factors: () => factors, clipboard: () => clipboard };
}

const token = (value?: string) => async () => value;
const verified: Factor = { id: 'f1', status: 'verified', factor_type: 'totp', friendly_name: 'Phone' };

/** The field's message, once its clearing tick has passed (it is cleared first, then said). */
async function saidUnder(h: ReturnType<typeof harness>) {
  await expect.poll(() => h.state().error).not.toBe('');
  return h.state().error;
}

describe('listing factors', () => {
  it.each<[string, Service, Factor[]]>([
    ['none', {}, []],
    ['a verified authenticator app', { factors: [verified] }, [verified]],
    ['an enrolment left half-way is not listed', { factors: [{ id: 'u', status: 'unverified' }] }, []],
    ['a phone factor is not listed', { factors: [{ id: 'p', status: 'verified', factor_type: 'phone' }] }, []],
    ['the list cannot be read: shown as none', { listFails: true }, []],
  ])('%s', async (_name, service, listed) => {
    const h = harness(service);
    expect(h.state().factors).toBeNull();
    await h.flow.load();
    expect(h.state().factors).toEqual(listed);
  });
});

describe('Set up: the password first', () => {
  it('right: a half-way enrolment is dropped, a factor enrolled, its QR code (encoded) and key shown', async () => {
    const h = harness({ factors: [{ id: 'old', status: 'unverified' }] });
    await h.flow.load();
    h.flow.startSetup();
    h.flow.setPassword(PASSWORD);
    await h.flow.submitSetup(token('captcha-1'));
    expect(h.asked).toEqual(['list', `check ${PASSWORD} with captcha-1`, 'list', 'unenroll old', 'enroll']);
    expect(h.state()).toMatchObject({
      step: {
        kind: 'code',
        id: 'new',
        qrCode: `data:image/svg+xml;charset=utf-8,${encodeURIComponent('<svg fill="#000000"></svg>')}`,
        secret: 'SETUPKEY',
      },
      password: '',
      error: '',
      busy: false,
    });
  });

  it.each<[string, Service, string]>([
    ['a wrong password', {}, 'twoFactorPasswordWrong'],
    [
      'no session any more',
      { checkRefusal: { name: 'AuthSessionMissingError', message: 'Auth session missing!' } },
      'sessionExpired',
    ],
    [
      'too many sign-ins: the service’s words',
      { checkRefusal: { code: 'over_request_rate_limit', message: 'Request rate limit reached' } },
      'Request rate limit reached',
    ],
    [
      'a refused CAPTCHA token: said as at sign-in',
      {
        checkRefusal: {
          code: 'captcha_failed',
          message: 'captcha protection: request disallowed (timeout-or-duplicate)',
        },
      },
      CAPTCHA_MESSAGE,
    ],
    ['a refusal without words', { checkRefusal: { code: 'unexpected_failure' } }, 'twoFactorFailed'],
  ])('refused, %s: said under the field, the field emptied, nothing enrolled', async (_name, service, said) => {
    const h = harness(service);
    h.flow.startSetup();
    h.flow.setPassword(service.checkRefusal ? PASSWORD : 'wrong-pass');
    await h.flow.submitSetup(token());
    expect(await saidUnder(h)).toBe(said);
    expect(h.state()).toMatchObject({ step: { kind: 'password' }, password: '', busy: false });
    expect(h.asked.filter((a) => a === 'enroll')).toEqual([]);
  });

  it('enrolment refused: the generic failure, still on the password step', async () => {
    const h = harness({ enrollFails: true });
    h.flow.startSetup();
    h.flow.setPassword(PASSWORD);
    await h.flow.submitSetup(token());
    expect(await saidUnder(h)).toBe('twoFactorFailed');
    expect(h.state()).toMatchObject({ step: { kind: 'password' }, busy: false });
  });

  it('an empty password sends nothing', async () => {
    const h = harness();
    h.flow.startSetup();
    await h.flow.submitSetup(token());
    expect(h.asked).toEqual([]);
  });

  it('a second press while the first check runs sends nothing more', async () => {
    const h = harness();
    h.flow.startSetup();
    h.flow.setPassword(PASSWORD);
    const first = h.flow.submitSetup(token());
    expect(h.state().busy).toBe(true);
    await h.flow.submitSetup(token());
    await first;
    expect(h.asked.filter((a) => a.startsWith('check'))).toHaveLength(1);
  });
});

describe('the first code', () => {
  async function atCode(service: Service = {}) {
    const h = harness(service);
    h.flow.startSetup();
    h.flow.setPassword(PASSWORD);
    await h.flow.submitSetup(token());
    h.asked.length = 0;
    return h;
  }

  it.each([CODE, '123 456', '123-456'])('%s: on, listed, toasted', async (typed) => {
    const h = await atCode();
    h.flow.setCode(typed);
    await h.flow.confirmCode();
    expect(h.asked).toEqual([`verify new ${CODE}`, 'list']);
    expect(h.state()).toMatchObject({ step: { kind: 'idle' }, code: '', error: '', busy: false });
    expect(h.state().factors?.map((f) => f.id)).toEqual(['new']);
    expect(h.toasts).toEqual(['twoFactorEnabledTitle: twoFactorEnabled']);
  });

  it.each<[string, string, Service, string, string[]]>([
    ['five digits: not sent', '12345', {}, 'twoFactorFormat', []],
    ['letters: not sent', 'abcdef', {}, 'twoFactorFormat', []],
    ['a wrong code', '654321', {}, 'twoFactorWrong', ['verify new 654321']],
    [
      'too many tries: the service’s words',
      CODE,
      { verifyRefusal: { code: 'too_many_requests', message: 'Too many attempts: wait 5 minutes' } },
      'Too many attempts: wait 5 minutes',
      [`verify new ${CODE}`],
    ],
    ['no answer', CODE, { verifyThrows: true }, 'twoFactorFailed', [`verify new ${CODE}`]],
  ])('%s: said under the field, the step stays, two-factor still off', async (_name, typed, service, said, asked) => {
    const h = await atCode(service);
    h.flow.setCode(typed);
    await h.flow.confirmCode();
    expect(await saidUnder(h)).toBe(said);
    expect(h.asked).toEqual(asked);
    expect(h.state().step.kind).toBe('code');
    expect(h.toasts).toEqual([]);
    expect(h.factors().filter((f) => f.status === 'verified')).toEqual([]);
  });

  it('a wrong code empties the field; a format slip keeps what was typed', async () => {
    const h = await atCode();
    h.flow.setCode('654321');
    await h.flow.confirmCode();
    expect(h.state().code).toBe('');
    h.flow.setCode('12345');
    await h.flow.confirmCode();
    expect(h.state().code).toBe('12345');
  });

  it('the same message twice is cleared in between, so it is announced again', async () => {
    const h = await atCode();
    h.flow.setCode('654321');
    await h.flow.confirmCode();
    expect(await saidUnder(h)).toBe('twoFactorWrong');
    const seen: string[] = [];
    const unbind = h.flow.$state.listen((s) => seen.push(s.error));
    h.flow.setCode('111111');
    await h.flow.confirmCode();
    await expect.poll(() => h.state().error).toBe('twoFactorWrong');
    unbind();
    expect(seen).toContain('');
  });

  it('Copy puts the setup key on the clipboard; without one nothing changes', async () => {
    const h = await atCode();
    await h.flow.copySecret();
    expect(h.clipboard()).toBe('SETUPKEY');
    expect(h.state().copied).toBe(true);
    const blocked = await atCode({ noClipboard: true });
    await blocked.flow.copySecret();
    expect(blocked.state().copied).toBe(false);
  });
});

describe('Remove: the password, not a code', () => {
  async function removing(service: Service = {}, password = PASSWORD) {
    const h = harness({ factors: [verified], ...service });
    await h.flow.load();
    h.flow.startRemove(verified);
    h.flow.setPassword(password);
    h.asked.length = 0;
    return h;
  }

  it('right: the factor goes, the list is read again, toasted', async () => {
    const h = await removing();
    expect(await h.flow.submitRemove(token('captcha-2'))).toBe(true);
    expect(h.asked).toEqual([`check ${PASSWORD} with captcha-2`, 'unenroll f1', 'list']);
    expect(h.state()).toMatchObject({ factors: [], step: { kind: 'idle' }, busy: false });
    expect(h.toasts).toEqual(['twoFactorRemovedTitle: twoFactorRemoved']);
  });

  it.each<[string, Service, string, string, string[]]>([
    ['a wrong password', {}, 'wrong-pass', 'twoFactorPasswordWrong', ['check wrong-pass']],
    [
      'the service refuses the removal: its words',
      { unenrollRefusal: { code: 'insufficient_aal', message: 'AAL2 required' } },
      PASSWORD,
      'AAL2 required',
      [`check ${PASSWORD}`, 'unenroll f1'],
    ],
    [
      'the service refuses without words',
      { unenrollRefusal: { message: '' } },
      PASSWORD,
      'twoFactorFailed',
      [`check ${PASSWORD}`, 'unenroll f1'],
    ],
  ])('%s: said under the field, the factor stays', async (_name, service, password, said, asked) => {
    const h = await removing(service, password);
    expect(await h.flow.submitRemove(token())).toBe(false);
    expect(await saidUnder(h)).toBe(said);
    expect(h.asked).toEqual(asked);
    expect(h.state()).toMatchObject({ factors: [verified], step: { kind: 'remove' }, busy: false });
    expect(h.factors()).toEqual([verified]);
    expect(h.toasts).toEqual([]);
  });

  it('the password form of setup does not remove, nor the removal form set up', async () => {
    const h = await removing();
    await h.flow.submitSetup(token());
    h.flow.startSetup();
    h.flow.setPassword(PASSWORD);
    expect(await h.flow.submitRemove(token())).toBe(false);
    expect(h.asked).toEqual([]);
  });
});

describe('Cancel', () => {
  it.each<[string, (f: ReturnType<typeof harness>['flow']) => void, boolean]>([
    ['on the password before setup: Set up takes the focus', (f) => f.startSetup(), true],
    ['on a removal: the focus stays in the list', (f) => f.startRemove(verified), false],
  ])('%s', (_name, open, setupFocus) => {
    const h = harness({ factors: [verified] });
    open(h.flow);
    h.flow.setPassword('typed');
    expect(h.flow.cancel()).toBe(setupFocus);
    expect(h.state()).toMatchObject({ step: { kind: 'idle' }, password: '', error: '' });
  });

  it('on the QR code: back to Set up, the half-way factor left for the next setup to drop', async () => {
    const h = harness();
    h.flow.startSetup();
    h.flow.setPassword(PASSWORD);
    await h.flow.submitSetup(token());
    expect(h.flow.cancel()).toBe(true);
    expect(h.state().step).toEqual({ kind: 'idle' });
    expect(h.factors()).toEqual([{ id: 'new', status: 'unverified', factor_type: 'totp' }]);
  });
});
