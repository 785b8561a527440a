// The /auth page's flow: which mode a URL opens (a link, a code step, two-factor, a tab), and every move
// between modes. The island (src/islands/Auth.tsx) renders `$state` and calls the actions; what the flow
// asks of the auth service and the browser comes in as `AuthFlowDeps`, so the decisions are tested alone
// (tests/unit/auth-flow.test.ts) and `browserAuthDeps()` (auth-flow-browser.ts) wires the real ones.
import { atom } from 'nanostores';
import { type AuthEntry, type AuthMode, type AuthTab, type CodeStep, recoveryLinkAction } from '../lib/auth-forms.ts';
import type { ToastInput } from './toasts.ts';

export interface Account {
  id: string;
  email: string;
}

export interface LinkTokens {
  access_token: string;
  refresh_token: string;
}

/** What proves the mailbox of a new account: the link's token hash, or the address and the mail's 6-digit code. */
export type ConfirmProof = { tokenHash: string } | { email: string; code: string };

/** What the password form confirms: the mail's link or code (null once this page's session confirmed the address). */
export interface ConfirmTarget {
  proof: ConfirmProof | null;
  via: 'link' | 'code';
}

/** A password this page already has for an address: typed at sign-up, or at a sign-in it refused as unconfirmed. */
export interface KnownPassword {
  email: string;
  password: string;
}

/** A recovery link for another account than the signed-in one, waiting for the visitor's answer. */
export interface OtherAccount {
  current: string;
  link: Account;
  tokens: LinkTokens;
}

/** What the auth service and the browser answer the flow. */
export interface AuthFlowDeps {
  /** The account of this browser's stored session, or null when nobody is signed in. */
  signedIn(): Promise<Account | null>;
  /** The account a link's access token belongs to, as the auth service reads it; null when it refuses it. */
  linkAccount(accessToken: string): Promise<Account | null>;
  /** Makes the tokens this browser's session: the user id it then holds, or null when the service refused. */
  setSession(tokens: LinkTokens): Promise<{ userId: string | undefined } | null>;
  /** Exchanges a PKCE code for a session; false when the service refused it. */
  exchangeCode(code: string): Promise<boolean>;
  /** True when the session was started with the password only by a member with a verified factor. */
  owesSecondFactor(): Promise<boolean>;
  /** Drops this browser's session (signOut scope local); never fails. */
  signOutLocal(): Promise<void>;
  /** Replaces the address with the mode's, without a navigation. */
  showUrl(mode: AuthMode): void;
  toast(input: ToastInput): void;
  /** A toast for the next page. */
  queueToast(input: ToastInput): void;
  /** Leaves for another page (location.replace, so Back does not return here). */
  leave(path: string): void;
}

export interface AuthFlowState {
  /** null until the URL has been read and, for a link, its session set. */
  mode: AuthMode | null;
  /** Set while a recovery link for another account waits for the visitor's answer. */
  otherAccount: OtherAccount | null;
  /** The address a code step is about, when the page knows it. */
  codeEmail: string;
  /** What the password form confirms: the confirmation mail's link, or its code. */
  confirmTarget: ConfirmTarget | null;
  /**
   * The password this page was given for an address (sign-up, or a sign-in refused as unconfirmed): the
   * confirmation code sets it, so the member does not type it again.
   */
  knownPassword: KnownPassword | null;
  /** What the code step says under its field when the password form's code was refused. */
  codeError: string;
}

/** The texts the flow says itself (content/labels/auth.md); the forms say the rest. */
export type AuthFlowTexts = Record<
  'linkExpiredTitle' | 'linkExpiredDescription' | 'linkRefusedTitle' | 'linkRefusedDescription' | 'welcomeBack',
  string
>;

export type AuthFlow = ReturnType<typeof createAuthFlow>;

export const AUTH_TABS: AuthTab[] = ['signin', 'signup'];

/** The tab a key moves to from `tab` (arrows wrap around, Home and End), or undefined for any other key. */
export function tabForKey(key: string, tab: AuthTab): AuthTab | undefined {
  const i = AUTH_TABS.indexOf(tab);
  if (key === 'ArrowRight') return AUTH_TABS[(i + 1) % AUTH_TABS.length];
  if (key === 'ArrowLeft') return AUTH_TABS[(i + AUTH_TABS.length - 1) % AUTH_TABS.length];
  if (key === 'Home') return AUTH_TABS[0];
  if (key === 'End') return AUTH_TABS[AUTH_TABS.length - 1];
  return undefined;
}

/**
 * The flow of one /auth page. `start(entry)` decides what the page opened with; the other actions are the
 * moves the forms report. Tokens in the address never switch accounts silently (login CSRF, session fixation).
 */
export function createAuthFlow(deps: AuthFlowDeps, labels: AuthFlowTexts) {
  const $state = atom<AuthFlowState>({
    mode: null,
    otherAccount: null,
    codeEmail: '',
    confirmTarget: null,
    knownPassword: null,
    codeError: '',
  });
  const set = (patch: Partial<AuthFlowState>) => $state.set({ ...$state.get(), ...patch });
  const setMode = (mode: AuthMode) => set({ mode });
  // False once the page is gone: answers that arrive later change nothing it shows.
  let active = true;
  // True once a recovery link (or event, or code) gave this page its session: leaving the reset form drops it.
  let recoverySession = false;
  // Where the two-factor step leads once the code is accepted: the reset form after a recovery link.
  let afterCode: 'dashboard' | 'reset' = 'dashboard';

  /** The toast for a link that was used, has expired or was refused. */
  function linkExpiredToast() {
    deps.toast({
      title: labels.linkExpiredTitle,
      description: labels.linkExpiredDescription,
      variant: 'destructive',
    });
  }

  /** The expired-link toast, and the Sign In tab. */
  function expired() {
    linkExpiredToast();
    deps.showUrl('signin');
    if (active) setMode('signin');
  }

  /**
   * Where a recovery session goes: the reset form, or first the two-factor step for a member with a verified
   * factor (the link signs in at aal1, and the auth service refuses a new password below aal2).
   */
  async function recoveryMode(): Promise<'reset' | 'mfa'> {
    return (await deps.owesSecondFactor().catch(() => false)) ? 'mfa' : 'reset';
  }

  /** Shows the reset form, or the two-factor step that leads to it. */
  function showRecovery(next: 'reset' | 'mfa') {
    if (next === 'mfa') afterCode = 'reset';
    deps.showUrl(next);
    if (active) setMode(next);
  }

  /** Makes a recovery link's tokens the session if they are still the account `expected`. */
  async function takeRecoveryLink(tokens: LinkTokens, expected: Account): Promise<boolean> {
    const taken = await deps.setSession(tokens);
    if (!taken) return false;
    if (taken.userId !== expected.id) {
      // The refresh token belongs to another account than the access token: not a real recovery link.
      await deps.signOutLocal();
      return false;
    }
    deps.showUrl('reset');
    return true;
  }

  function selectTab(tab: AuthTab) {
    deps.showUrl(tab);
    setMode(tab);
  }

  /** After the two-factor step: the reset form for a recovery session, else the dashboard. */
  function secondFactorDone(verified: boolean) {
    if (afterCode === 'reset') {
      afterCode = 'dashboard';
      deps.showUrl('reset');
      setMode('reset');
      return;
    }
    if (verified) deps.queueToast({ title: labels.welcomeBack });
    deps.leave('/dashboard');
  }

  async function enter(entry: AuthEntry): Promise<void> {
    if (entry.kind === 'link-error') {
      if (active) expired();
      return;
    }
    if (entry.kind === 'not-recovery') {
      // Tokens from anything but a recovery link never become the session (login CSRF, session fixation).
      const refused = {
        title: labels.linkRefusedTitle,
        description: labels.linkRefusedDescription,
        variant: 'destructive' as const,
      };
      deps.showUrl('signin');
      if (await deps.signedIn()) {
        deps.queueToast(refused);
        deps.leave('/');
        return;
      }
      deps.toast(refused);
      if (active) setMode('signin');
      return;
    }
    if (entry.kind === 'confirm-link') {
      // Only the form: the link is verified when the visitor saves a password, so opening it (or a mail
      // scanner fetching it) confirms nothing. The token stays in the address until then, for a reload.
      set({ confirmTarget: { proof: { tokenHash: entry.tokenHash }, via: 'link' } });
      if (active) setMode('choose');
      return;
    }
    if (entry.kind === 'pkce') {
      const ok = await deps.exchangeCode(entry.code);
      if (!active) return;
      if (!ok) return expired();
      recoverySession = true;
      showRecovery(await recoveryMode());
      return;
    }
    if (entry.kind === 'tokens') {
      const tokens = { access_token: entry.accessToken, refresh_token: entry.refreshToken };
      // Out of the address bar (and history) at once, whatever happens next.
      deps.showUrl('reset');
      const [link, current] = await Promise.all([deps.linkAccount(entry.accessToken), deps.signedIn()]);
      if (!active) return;
      if (!link) return expired();
      if (current && recoveryLinkAction(current.id, link.id) === 'ask') {
        // A signed-in member is never switched to another account without saying so.
        set({ otherAccount: { current: current.email, link, tokens } });
        return;
      }
      if (!(await takeRecoveryLink(tokens, link))) return expired();
      recoverySession = true;
      showRecovery(await recoveryMode());
      return;
    }
    if (entry.kind === 'reset') {
      showRecovery(await recoveryMode());
      return;
    }
    const current = await deps.signedIn();
    if (entry.kind === 'mfa' && !current) {
      deps.showUrl('signin');
      if (active) setMode('signin');
      return;
    }
    const mode = $state.get().mode;
    if (current && mode !== 'reset' && mode !== 'mfa') {
      // A password-only session of a member with two-factor owes its code here; any other session is done.
      if (await deps.owesSecondFactor().catch(() => false)) {
        deps.showUrl('mfa');
        if (active) setMode('mfa');
        return;
      }
      deps.leave(entry.kind === 'mfa' ? '/dashboard' : '/');
      return;
    }
    if (entry.kind === 'mfa') return;
    if (active && $state.get().mode === null) setMode(entry.kind === 'code' ? entry.step : entry.tab);
  }

  return {
    $state,

    /** Opens what the page's address asks for; a failure shows the Sign In tab. */
    async start(entry: AuthEntry): Promise<void> {
      try {
        await enter(entry);
      } catch (err) {
        console.error('Auth page start failed:', err);
        if (active && $state.get().mode === null) setMode('signin');
      }
    },

    /** The page is gone: later answers change nothing. */
    stop() {
      active = false;
    },

    /** supabase-js reported PASSWORD_RECOVERY: its session may set a password. */
    recoveryEvent() {
      recoverySession = true;
      recoveryMode()
        .then(showRecovery)
        .catch(() => {});
    },

    selectTab,

    /**
     * A code step for the address a form just used (a mail went out, or sign-in found it unconfirmed), with the
     * password typed there when there was one.
     */
    openCodeStep(step: CodeStep, email: string, password?: string) {
      if (password) set({ knownPassword: { email, password } });
      set({ codeError: '', codeEmail: email });
      deps.showUrl(step);
      setMode(step);
    },

    /** Sign In found a password-only session of a member with two-factor. */
    secondFactor() {
      deps.showUrl('mfa');
      setMode('mfa');
    },

    /** Back from the reset form (Cancel, or a link found expired on saving). */
    async leaveReset(expiredLink: boolean) {
      if (expiredLink) linkExpiredToast();
      // A recovery session is only for setting a password: leaving the form drops it.
      if (recoverySession) {
        recoverySession = false;
        await deps.signOutLocal();
      }
      selectTab('signin');
    },

    /** The two-factor code was accepted: the session is at aal2. */
    secondFactorVerified: () => secondFactorDone(true),

    /** The two-factor step found no verified factor: on as after a code, without the welcome. */
    noSecondFactor: () => secondFactorDone(false),

    /** Cancel on the two-factor step: the password-only session is no use without its code. */
    async cancelSecondFactor() {
      recoverySession = false;
      afterCode = 'dashboard';
      await deps.signOutLocal();
      selectTab('signin');
    },

    /** The answer to "Reset the password of another account?": stay signed in, or switch to the link's account. */
    async answerOtherAccount(proceed: boolean) {
      const pending = $state.get().otherAccount;
      if (!pending) return;
      if (!proceed) {
        deps.leave('/');
        return;
      }
      set({ otherAccount: null });
      await deps.signOutLocal();
      if (await takeRecoveryLink(pending.tokens, pending.link)) {
        recoverySession = true;
        showRecovery(await recoveryMode());
      } else {
        linkExpiredToast();
        deps.showUrl('signin');
        setMode('signin');
      }
    },

    /** A reset code was accepted: its session may set a new password. */
    async recovered() {
      recoverySession = true;
      showRecovery(await recoveryMode());
    },

    /** The confirmation code step needs a password chosen first. */
    choosePassword(target: ConfirmTarget) {
      if (target.proof && 'email' in target.proof) set({ codeEmail: target.proof.email });
      set({ confirmTarget: target, mode: 'choose' });
    },

    /** The password form's code was refused: back to the code step, keeping the password for the next code. */
    confirmCodeRefused(message: string, password: string) {
      const proof = $state.get().confirmTarget?.proof;
      if (proof && 'email' in proof) set({ knownPassword: { email: proof.email, password } });
      set({ codeError: message, mode: 'confirm' });
    },

    /** Back from the password form to the tabs. */
    leaveConfirm() {
      set({ confirmTarget: null });
      selectTab('signin');
    },
  };
}
