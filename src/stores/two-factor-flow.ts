// Settings' two-factor section as a store: Set up asks the current password, then enrolls an authenticator-app
// factor and waits for its first code; Remove asks the password, then unenrolls. The island
// (src/islands/settings/SettingsTwoFactor.tsx) renders `$state` and calls the actions; what they ask of the
// auth service comes in as `TwoFactorDeps` (`browserTwoFactorDeps()` wires supabase-js), so the steps and their
// failures are tested alone (tests/unit/two-factor-flow.test.ts).
import { atom } from 'nanostores';
import { cleanTotp, isTotpFormat, qrImageSrc, totpFailure, verifiedTotpFactors } from '../lib/mfa.ts';
import { passwordCheckFailure } from '../lib/password-check.ts';
import { checkCurrentPassword } from './password-check.ts';
import { supabase } from './supabase.ts';
import { type ToastInput, toast } from './toasts.ts';

export interface Factor {
  id: string;
  status: string;
  factor_type?: string;
  friendly_name?: string;
}

/** A refusal as the auth service words it. */
export interface Refusal {
  code?: string;
  name?: string;
  message?: string;
}

export interface TwoFactorDeps {
  /** Every factor of the member (GET /user), whatever its status; throws when they cannot be read. */
  listFactors(): Promise<Factor[]>;
  /** Signs in with the member's address and `password`: null when it is right, else the refusal. */
  checkPassword(password: string, captchaToken: string | undefined): Promise<Refusal | null>;
  /** A new authenticator-app factor, its QR code as supabase-js hands it and its key; throws when refused. */
  enroll(): Promise<{ id: string; qrCode: string; secret: string }>;
  /** Null when the factor is gone, else the refusal. */
  unenroll(factorId: string): Promise<Refusal | null>;
  /** Challenges the factor and verifies `code` (which raises the session to aal2): null when accepted. */
  verify(factorId: string, code: string): Promise<Refusal | null>;
  /** Puts `text` on the clipboard; throws when the browser does not allow it. */
  copy(text: string): Promise<void>;
  toast(input: ToastInput): void;
}

/** The texts the flow says (content/labels/settings.md). */
export type TwoFactorTexts = Record<
  | 'twoFactorPasswordWrong'
  | 'sessionExpired'
  | 'twoFactorFailed'
  | 'twoFactorFormat'
  | 'twoFactorWrong'
  | 'twoFactorEnabledTitle'
  | 'twoFactorEnabled'
  | 'twoFactorRemovedTitle'
  | 'twoFactorRemoved',
  string
>;

/**
 * Where the section is: the Set up button ('idle'), the password asked before enrolling ('password'), the
 * new factor's QR code waiting for its first code ('code'), or a factor's removal asking the password.
 */
export type TwoFactorStep =
  | { kind: 'idle' }
  | { kind: 'password' }
  | { kind: 'code'; id: string; qrCode: string; secret: string }
  | { kind: 'remove'; factor: Factor };

export interface TwoFactorState {
  /** The member's verified factors; null until read. */
  factors: Factor[] | null;
  step: TwoFactorStep;
  /** The password and code fields. */
  password: string;
  code: string;
  /** What the step's field says. */
  error: string;
  busy: boolean;
  /** The setup key went to the clipboard. */
  copied: boolean;
}

/** The form's CAPTCHA token, asked for only when the password is sent. */
export type CaptchaToken = () => Promise<string | undefined>;

export type TwoFactorFlow = ReturnType<typeof createTwoFactorFlow>;

export function createTwoFactorFlow(deps: TwoFactorDeps, texts: TwoFactorTexts) {
  const $state = atom<TwoFactorState>({
    factors: null,
    step: { kind: 'idle' },
    password: '',
    code: '',
    error: '',
    busy: false,
    copied: false,
  });
  const set = (patch: Partial<TwoFactorState>) => $state.set({ ...$state.get(), ...patch });

  /** Says `message` under the field; cleared first, so the same message said twice is announced twice. */
  function fail(message: string) {
    set({ error: '' });
    setTimeout(() => set({ error: message }), 0);
  }

  function goTo(step: TwoFactorStep) {
    set({ password: '', code: '', error: '', copied: false, step });
  }

  /** Lists the member's verified factors; answers every factor, unverified ones too. */
  async function loadFactors() {
    const all = await deps.listFactors();
    set({ factors: verifiedTotpFactors(all) });
    return all;
  }

  /** Checks the password typed (with the form's CAPTCHA token); true when it is right, else the field says why. */
  async function passwordChecks(captchaToken: CaptchaToken): Promise<boolean> {
    const refused = await deps.checkPassword($state.get().password, await captchaToken());
    if (!refused) return true;
    const failure = passwordCheckFailure(refused);
    set({ password: '' });
    if (failure.kind === 'wrong') fail(texts.twoFactorPasswordWrong);
    else if (failure.kind === 'expired') fail(texts.sessionExpired);
    else fail(failure.text ?? texts.twoFactorFailed);
    return false;
  }

  /** Runs `work` with the form busy; an exception is logged as `what` and said as the generic failure. */
  async function busyWith<T>(what: string, work: () => Promise<T>): Promise<T | undefined> {
    set({ busy: true });
    try {
      return await work();
    } catch (err) {
      console.error(`${what}:`, err);
      fail(texts.twoFactorFailed);
      return undefined;
    } finally {
      set({ busy: false });
    }
  }

  return {
    $state,

    /** Reads the member's factors; a failure shows the section as without any. */
    async load() {
      try {
        await loadFactors();
      } catch (err) {
        console.error('Two-factor factors failed to load:', err);
        set({ factors: [] });
      }
    },

    setPassword: (password: string) => set({ password }),
    setCode: (code: string) => set({ code }),

    /** Set up: the password first. */
    startSetup: () => goTo({ kind: 'password' }),

    /** Remove on a listed factor: the password first. */
    startRemove: (factor: Factor) => goTo({ kind: 'remove', factor }),

    /** The password before setup: right, it enrolls a factor and shows its QR code and key. */
    async submitSetup(captchaToken: CaptchaToken) {
      const { step, password, busy } = $state.get();
      if (step.kind !== 'password' || !password || busy) return;
      await busyWith('Two-factor setup failed', async () => {
        if (!(await passwordChecks(captchaToken))) return;
        // An enrolment left half-way would count against the factor limit: it is dropped first.
        const all = await loadFactors();
        for (const f of all) if (f.status !== 'verified') await deps.unenroll(f.id);
        const factor = await deps.enroll();
        goTo({ kind: 'code', id: factor.id, qrCode: qrImageSrc(factor.qrCode), secret: factor.secret });
      });
    },

    /** The new factor's first code: accepted, two-factor is on. */
    async confirmCode() {
      const { step, code, busy } = $state.get();
      if (step.kind !== 'code' || busy) return;
      const token = cleanTotp(code);
      if (!isTotpFormat(token)) return fail(texts.twoFactorFormat);
      await busyWith('Two-factor confirmation failed', async () => {
        const refused = await deps.verify(step.id, token);
        if (refused) {
          const failure = totpFailure(refused);
          set({ code: '' });
          fail(failure.kind === 'wrong' ? texts.twoFactorWrong : (failure.text ?? texts.twoFactorFailed));
          return;
        }
        goTo({ kind: 'idle' });
        await loadFactors();
        deps.toast({ title: texts.twoFactorEnabledTitle, description: texts.twoFactorEnabled });
      });
    },

    /** The password before removal: right, the factor goes. True once it has. */
    async submitRemove(captchaToken: CaptchaToken): Promise<boolean> {
      const { step, password, busy } = $state.get();
      if (step.kind !== 'remove' || !password || busy) return false;
      const removed = await busyWith('Two-factor removal failed', async () => {
        if (!(await passwordChecks(captchaToken))) return false;
        const failed = await deps.unenroll(step.factor.id);
        if (failed) {
          fail(failed.message || texts.twoFactorFailed);
          return false;
        }
        goTo({ kind: 'idle' });
        await loadFactors();
        deps.toast({ title: texts.twoFactorRemovedTitle, description: texts.twoFactorRemoved });
        return true;
      });
      return removed ?? false;
    },

    /** Copies the setup key; without a clipboard the key stays selectable in its box. */
    async copySecret() {
      const { step } = $state.get();
      if (step.kind !== 'code') return;
      try {
        await deps.copy(step.secret);
        set({ copied: true });
      } catch {
        // No clipboard (permissions).
      }
    },

    /** Cancel on any step: back to the start. True when it was a setup step (Set up takes the focus back). */
    cancel(): boolean {
      const kind = $state.get().step.kind;
      goTo({ kind: 'idle' });
      return kind === 'password' || kind === 'code';
    },
  };
}

/** The browser's deps for the member signed in as `email`: the site's supabase-js client and the clipboard. */
export function browserTwoFactorDeps(email: string): TwoFactorDeps {
  const mfa = () => supabase().auth.mfa;
  return {
    async listFactors() {
      const { data, error } = await mfa().listFactors();
      if (error) throw error;
      return data?.all ?? [];
    },
    checkPassword: (password, captchaToken) => checkCurrentPassword(email, password, captchaToken),
    async enroll() {
      const { data, error } = await mfa().enroll({ factorType: 'totp' });
      if (error || !data) throw error ?? new Error('no factor');
      return { id: data.id, qrCode: data.totp.qr_code, secret: data.totp.secret };
    },
    async unenroll(factorId) {
      return (await mfa().unenroll({ factorId })).error;
    },
    async verify(factorId, code) {
      return (await mfa().challengeAndVerify({ factorId, code })).error;
    },
    copy: (text) => navigator.clipboard.writeText(text),
    toast,
  };
}
