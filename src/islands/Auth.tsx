import { type KeyboardEvent, useCallback, useEffect, useRef, useState } from 'react';
import Button from '../components/ui/Button.tsx';
import {
  type AuthLabels,
  type AuthMode,
  type AuthTab,
  type CodeStep,
  fillAccounts,
  readAuthEntry,
  recoveryLinkAction,
  tabHref,
} from '../lib/auth-forms.ts';
import { needsSecondFactor } from '../lib/mfa.ts';
import { SUPABASE_KEY } from '../stores/api-key.ts';
import { $auth, SUPABASE_URL } from '../stores/auth.ts';
import { supabase } from '../stores/supabase.ts';
import { queueToast, toast } from '../stores/toasts.ts';
import AuthCode, { type KnownPassword } from './auth/AuthCode.tsx';
import AuthConfirm, { type ConfirmTarget } from './auth/AuthConfirm.tsx';
import AuthMfa from './auth/AuthMfa.tsx';
import AuthReset from './auth/AuthReset.tsx';
import AuthSignIn from './auth/AuthSignIn.tsx';
import AuthSignUp from './auth/AuthSignUp.tsx';
import { problemToast } from './auth/auth-toast.ts';
import type { PasswordChecklistLabels } from './auth/PasswordChecklist.tsx';

interface Props {
  labels: AuthLabels;
  passwordLabels: PasswordChecklistLabels;
}

const TABS: AuthTab[] = ['signin', 'signup'];

/** Replaces the address without a navigation, e.g. after reading tokens out of it. */
function showUrl(mode: AuthMode) {
  history.replaceState(history.state, '', tabHref(mode));
}

interface Account {
  id: string;
  email: string;
}

/**
 * The account a link's access token belongs to, as the auth service reads it (GET /auth/v1/user); null when
 * it refuses the token. A plain request, not auth.getUser(token): that drops the stored session when the
 * answer is session_not_found, and a stale link must not sign the member out.
 */
async function linkAccount(accessToken: string): Promise<Account | null> {
  try {
    const res = await fetch(`${SUPABASE_URL.replace(/\/+$/, '')}/auth/v1/user`, {
      headers: { apikey: SUPABASE_KEY, Authorization: `Bearer ${accessToken}` },
    });
    if (!res.ok) return null;
    const user = (await res.json()) as { id?: unknown; email?: unknown };
    if (typeof user.id !== 'string') return null;
    return { id: user.id, email: typeof user.email === 'string' ? user.email : '' };
  } catch {
    return null;
  }
}

/** Makes a recovery link's tokens the session if they are still the account `expected`, and cleans the address. */
async function takeRecoveryLink(tokens: { access_token: string; refresh_token: string }, expected: Account) {
  const client = supabase();
  const { data, error } = await client.auth.setSession(tokens);
  if (error) return false;
  if (data.user?.id !== expected.id) {
    // The refresh token belongs to another account than the access token: not a real recovery link.
    await client.auth.signOut({ scope: 'local' }).catch(() => {});
    return false;
  }
  showUrl('reset');
  return true;
}

/** True when the stored session was started with the password only by a member with two-factor. */
async function owesSecondFactor(): Promise<boolean> {
  const { data } = await supabase().auth.mfa.getAuthenticatorAssuranceLevel();
  return needsSecondFactor(data);
}

/**
 * Where a recovery session goes: the reset form, or first the two-factor step for a member with a verified
 * factor (the link signs in at aal1, and the auth service refuses a new password below aal2).
 */
async function recoveryMode(): Promise<'reset' | 'mfa'> {
  return (await owesSecondFactor().catch(() => false)) ? 'mfa' : 'reset';
}

/** The toast for a link that was used, has expired or was refused, and the address of the Sign In tab. */
function linkExpired(labels: AuthLabels) {
  problemToast(labels, { title: 'linkExpiredTitle', description: 'linkExpiredDescription' });
  showUrl('signin');
}

/** A recovery link for another account than the signed-in one, waiting for the visitor's answer. */
interface OtherAccount {
  current: string;
  link: Account;
  tokens: { access_token: string; refresh_token: string };
}

/**
 * The /auth page: Sign In / Sign Up tabs, or the password reset form when the page was opened from a
 * recovery link (code, hash tokens or tab=reset) or a PASSWORD_RECOVERY event arrives, or a step for an
 * emailed code (after Create Account or Forgot password?, or tab=confirm / tab=recover), or the two-factor
 * step for a session started with the password only by a member with a verified factor (after Sign In, before
 * the reset form of a recovery link, or tab=mfa, where the signed-in pages send such a session), or the
 * password form that confirms a new account (the confirmation mail's link, ?token_hash=…&type=signup, or its
 * code when the page does not know the password chosen at sign-up).
 */
export default function Auth({ labels, passwordLabels }: Props) {
  // null until the URL has been read and, for a link, its session set.
  const [mode, setMode] = useState<AuthMode | null>(null);
  const modeRef = useRef<AuthMode | null>(null);
  modeRef.current = mode;
  const tabRefs = useRef<Record<AuthTab, HTMLButtonElement | null>>({ signin: null, signup: null });
  // True once a recovery link (or event) gave this page its session: leaving the reset form drops it.
  const recoverySession = useRef(false);
  const [otherAccount, setOtherAccount] = useState<OtherAccount | null>(null);
  // The address a code step is about, when the page knows it.
  const [codeEmail, setCodeEmail] = useState('');
  // Where the two-factor step leads once the code is accepted: the reset form after a recovery link.
  const afterCode = useRef<'dashboard' | 'reset'>('dashboard');
  // What the password form confirms: the confirmation mail's link, or its code.
  const [confirmTarget, setConfirmTarget] = useState<ConfirmTarget | null>(null);
  // The password this page was given for an address (sign-up, or a sign-in refused as unconfirmed): the
  // confirmation code sets it, so the member does not type it again.
  const knownPassword = useRef<KnownPassword | null>(null);
  // What the code step says under its field when the password form's code was refused.
  const [codeError, setCodeError] = useState('');

  useEffect(() => {
    const client = supabase();
    let active = true;

    function expired() {
      linkExpired(labels);
      if (active) setMode('signin');
    }

    /** The reset form for the recovery session, or the two-factor step before it. */
    async function openRecovery() {
      const next = await recoveryMode();
      if (next === 'mfa') afterCode.current = 'reset';
      showUrl(next);
      if (active) setMode(next);
    }

    async function start() {
      const entry = readAuthEntry(location.search, location.hash);
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
        showUrl('signin');
        const { data } = await client.auth.getSession();
        if (data.session) {
          queueToast(refused);
          location.replace('/');
          return;
        }
        toast(refused);
        if (active) setMode('signin');
        return;
      }
      if (entry.kind === 'confirm-link') {
        // Only the form: the link is verified when the visitor saves a password, so opening it (or a mail
        // scanner fetching it) confirms nothing. The token stays in the address until then, for a reload.
        setConfirmTarget({ proof: { tokenHash: entry.tokenHash }, via: 'link' });
        if (active) setMode('choose');
        return;
      }
      if (entry.kind === 'pkce') {
        const { error } = await client.auth.exchangeCodeForSession(entry.code);
        if (!active) return;
        if (error) return expired();
        recoverySession.current = true;
        await openRecovery();
        return;
      }
      if (entry.kind === 'tokens') {
        const tokens = { access_token: entry.accessToken, refresh_token: entry.refreshToken };
        // Out of the address bar (and history) at once, whatever happens next.
        showUrl('reset');
        const [link, { data }] = await Promise.all([linkAccount(entry.accessToken), client.auth.getSession()]);
        if (!active) return;
        if (!link) return expired();
        const signedIn = data.session?.user ?? null;
        if (signedIn && recoveryLinkAction(signedIn.id, link.id) === 'ask') {
          // A signed-in member is never switched to another account without saying so.
          setOtherAccount({ current: signedIn.email ?? '', link, tokens });
          return;
        }
        if (!(await takeRecoveryLink(tokens, link))) return expired();
        recoverySession.current = true;
        await openRecovery();
        return;
      }
      if (entry.kind === 'reset') {
        await openRecovery();
        return;
      }
      const { data } = await client.auth.getSession();
      if (entry.kind === 'mfa' && !data.session) {
        showUrl('signin');
        if (active) setMode('signin');
        return;
      }
      if (data.session && modeRef.current !== 'reset' && modeRef.current !== 'mfa') {
        // A password-only session of a member with two-factor owes its code here; any other session is done.
        if (await owesSecondFactor().catch(() => false)) {
          showUrl('mfa');
          if (active) setMode('mfa');
          return;
        }
        location.replace(entry.kind === 'mfa' ? '/dashboard' : '/');
        return;
      }
      if (entry.kind === 'mfa') return;
      if (active) setMode((m) => m ?? (entry.kind === 'code' ? entry.step : entry.tab));
    }

    const unbind = $auth.listen((state) => {
      if (state.event === 'PASSWORD_RECOVERY') {
        recoverySession.current = true;
        openRecovery().catch(() => {});
      }
    });
    start().catch((err) => {
      console.error('Auth page start failed:', err);
      if (active) setMode((m) => m ?? 'signin');
    });
    return () => {
      active = false;
      unbind();
    };
  }, [labels]);

  function selectTab(tab: AuthTab, focus = false) {
    showUrl(tab);
    setMode(tab);
    if (focus) tabRefs.current[tab]?.focus();
  }

  /**
   * A code step for the address a form just used (a mail went out, or sign-in found it unconfirmed), with the
   * password typed there when there was one.
   */
  function openCodeStep(step: CodeStep, email: string, password?: string) {
    if (password) knownPassword.current = { email, password };
    setCodeError('');
    setCodeEmail(email);
    showUrl(step);
    setMode(step);
  }

  function onTabKey(event: KeyboardEvent<HTMLButtonElement>, tab: AuthTab) {
    const i = TABS.indexOf(tab);
    const next =
      event.key === 'ArrowRight'
        ? TABS[(i + 1) % TABS.length]
        : event.key === 'ArrowLeft'
          ? TABS[(i + TABS.length - 1) % TABS.length]
          : event.key === 'Home'
            ? TABS[0]
            : event.key === 'End'
              ? TABS[TABS.length - 1]
              : undefined;
    if (!next) return;
    event.preventDefault();
    selectTab(next, true);
  }

  async function leaveReset(expiredLink: boolean) {
    if (expiredLink) problemToast(labels, { title: 'linkExpiredTitle', description: 'linkExpiredDescription' });
    // A recovery session is only for setting a password: leaving the form drops it.
    if (recoverySession.current) {
      recoverySession.current = false;
      await supabase()
        .auth.signOut({ scope: 'local' })
        .catch(() => {});
    }
    selectTab('signin');
  }

  /** Shows the reset form, or the two-factor step that leads to it. */
  function showRecovery(next: 'reset' | 'mfa') {
    if (next === 'mfa') afterCode.current = 'reset';
    showUrl(next);
    setMode(next);
  }

  /** After the two-factor step: the reset form for a recovery session, else the dashboard. */
  const secondFactorDone = useCallback(
    (verified: boolean) => {
      if (afterCode.current === 'reset') {
        afterCode.current = 'dashboard';
        showUrl('reset');
        setMode('reset');
        return;
      }
      if (verified) queueToast({ title: labels.welcomeBack });
      location.replace('/dashboard');
    },
    [labels],
  );
  const noSecondFactor = useCallback(() => secondFactorDone(false), [secondFactorDone]);

  async function cancelSecondFactor() {
    // The password-only session is no use without its code: Cancel signs out of it.
    recoverySession.current = false;
    afterCode.current = 'dashboard';
    await supabase()
      .auth.signOut({ scope: 'local' })
      .catch(() => {});
    selectTab('signin');
  }

  async function answerOtherAccount(proceed: boolean) {
    const pending = otherAccount;
    if (!pending) return;
    if (!proceed) {
      location.replace('/');
      return;
    }
    setOtherAccount(null);
    await supabase()
      .auth.signOut({ scope: 'local' })
      .catch(() => {});
    if (await takeRecoveryLink(pending.tokens, pending.link)) {
      recoverySession.current = true;
      showRecovery(await recoveryMode());
    } else {
      linkExpired(labels);
      setMode('signin');
    }
  }

  if (otherAccount) {
    return (
      <section aria-labelledby="other-account-heading" className="space-y-4">
        <h2 id="other-account-heading" className="text-xl font-semibold text-white">
          {labels.otherAccountHeading}
        </h2>
        <p className="text-muted">
          {fillAccounts(labels.otherAccountText, otherAccount.current, otherAccount.link.email)}
        </p>
        <Button className="w-full" onClick={() => answerOtherAccount(false)}>
          {labels.otherAccountStay}
        </Button>
        <Button variant="ghost" className="w-full" onClick={() => answerOtherAccount(true)}>
          {labels.otherAccountContinue}
        </Button>
      </section>
    );
  }

  if (mode === null) {
    return (
      <p className="py-10 text-center text-muted" role="status">
        {labels.loading}
      </p>
    );
  }

  if (mode === 'reset') {
    return <AuthReset labels={labels} passwordLabels={passwordLabels} onLeave={leaveReset} />;
  }

  if (mode === 'mfa') {
    return (
      <AuthMfa
        labels={labels}
        onVerified={() => secondFactorDone(true)}
        onNoFactor={noSecondFactor}
        onCancel={cancelSecondFactor}
      />
    );
  }

  if (mode === 'choose' && confirmTarget) {
    return (
      <AuthConfirm
        labels={labels}
        passwordLabels={passwordLabels}
        target={confirmTarget}
        onCodeRefused={(message, password) => {
          const proof = confirmTarget.proof;
          if (proof && 'email' in proof) knownPassword.current = { email: proof.email, password };
          setCodeError(message);
          setMode('confirm');
        }}
        onLeave={() => {
          setConfirmTarget(null);
          selectTab('signin');
        }}
      />
    );
  }

  if (mode === 'confirm' || mode === 'recover') {
    return (
      <AuthCode
        key={mode}
        labels={labels}
        step={mode}
        email={codeEmail}
        onBack={() => selectTab('signin')}
        onRecovered={async () => {
          recoverySession.current = true;
          showRecovery(await recoveryMode());
        }}
        knownPassword={knownPassword.current}
        initialError={codeError}
        onChoosePassword={(target) => {
          if (target.proof && 'email' in target.proof) setCodeEmail(target.proof.email);
          setConfirmTarget(target);
          setMode('choose');
        }}
      />
    );
  }

  return (
    <div>
      <div
        role="tablist"
        aria-label={labels.tabsLabel}
        className="grid grid-cols-2 gap-1 rounded-xl border border-navy-700 bg-navy-900 p-1"
      >
        {TABS.map((tab) => (
          <button
            key={tab}
            ref={(el) => {
              tabRefs.current[tab] = el;
            }}
            type="button"
            role="tab"
            id={`auth-tab-${tab}`}
            aria-selected={mode === tab}
            aria-controls={`auth-panel-${tab}`}
            tabIndex={mode === tab ? 0 : -1}
            onClick={() => selectTab(tab)}
            onKeyDown={(e) => onTabKey(e, tab)}
            className={`min-h-12 rounded-lg font-semibold ${mode === tab ? 'bg-accent text-navy-950' : 'text-white hover:bg-navy-800'}`}
          >
            {tab === 'signin' ? labels.signInTab : labels.signUpTab}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`auth-panel-${mode}`} aria-labelledby={`auth-tab-${mode}`} className="mt-6">
        {mode === 'signin' ? (
          <AuthSignIn
            labels={labels}
            onCodeStep={openCodeStep}
            onSecondFactor={() => {
              showUrl('mfa');
              setMode('mfa');
            }}
          />
        ) : (
          <AuthSignUp
            labels={labels}
            passwordLabels={passwordLabels}
            onSignedUp={(email, password) => openCodeStep('confirm', email, password)}
          />
        )}
      </div>
    </div>
  );
}
