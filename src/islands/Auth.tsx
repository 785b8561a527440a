import { useStore } from '@nanostores/preact';
import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import Button from '../components/ui/Button.tsx';
import { type AuthTab, fillAccounts, readAuthEntry } from '../lib/auth-forms.ts';
import { $auth } from '../stores/auth.ts';
import { AUTH_TABS, createAuthFlow, tabForKey } from '../stores/auth-flow.ts';
import { browserAuthDeps } from '../stores/auth-flow-browser.ts';
import { loadSupabase } from '../stores/supabase-lazy.ts';
import AuthCode from './auth/AuthCode.tsx';
import AuthConfirm from './auth/AuthConfirm.tsx';
import AuthMfa from './auth/AuthMfa.tsx';
import AuthReset from './auth/AuthReset.tsx';
import AuthSignIn from './auth/AuthSignIn.tsx';
import AuthSignUp from './auth/AuthSignUp.tsx';
import type { AuthLabels, PasswordChecklistLabels } from './auth/labels.ts';

interface Props {
  labels: AuthLabels;
  passwordLabels: PasswordChecklistLabels;
}

/**
 * The /auth page: Sign In / Sign Up tabs, or the password reset form when the page was opened from a
 * recovery link (code, hash tokens or tab=reset) or a PASSWORD_RECOVERY event arrives, or a step for an
 * emailed code (after Create Account or Forgot password?, or tab=confirm / tab=recover), or the two-factor
 * step for a session started with the password only by a member with a verified factor (after Sign In, before
 * the reset form of a recovery link, or tab=mfa, where the signed-in pages send such a session), or the
 * password form that confirms a new account (the confirmation mail's link, ?token_hash=…&type=signup, or its
 * code when the page does not know the password chosen at sign-up). Which one, and every move between them,
 * is src/stores/auth-flow.ts; this renders it.
 */
export default function Auth({ labels, passwordLabels }: Props) {
  const [flow] = useState(() => createAuthFlow(browserAuthDeps(), labels));
  const { mode, otherAccount, codeEmail, confirmTarget, knownPassword, codeError } = useStore(flow.$state);
  const tabRefs = useRef<Record<AuthTab, HTMLButtonElement | null>>({ signin: null, signup: null });

  useEffect(() => {
    const unbind = $auth.listen((state) => {
      if (state.event === 'PASSWORD_RECOVERY') flow.recoveryEvent();
    });
    flow.start(readAuthEntry(location.search, location.hash));
    // supabase-js is loaded when a step first needs the auth server; the first focus or tap starts that load,
    // so the client is there by the time a form is sent.
    const warm = () => void loadSupabase().catch(() => {});
    const events = ['focusin', 'pointerdown'] as const;
    for (const type of events) addEventListener(type, warm, { once: true, passive: true });
    return () => {
      flow.stop();
      unbind();
      for (const type of events) removeEventListener(type, warm);
    };
  }, [flow]);

  function onTabKey(event: KeyboardEvent<HTMLButtonElement>, tab: AuthTab) {
    const next = tabForKey(event.key, tab);
    if (!next) return;
    event.preventDefault();
    flow.selectTab(next);
    tabRefs.current[next]?.focus();
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
        <Button className="w-full" onClick={() => flow.answerOtherAccount(false)}>
          {labels.otherAccountStay}
        </Button>
        <Button variant="ghost" className="w-full" onClick={() => flow.answerOtherAccount(true)}>
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
    return <AuthReset labels={labels} passwordLabels={passwordLabels} onLeave={flow.leaveReset} />;
  }

  if (mode === 'mfa') {
    return (
      <AuthMfa
        labels={labels}
        onVerified={flow.secondFactorVerified}
        onNoFactor={flow.noSecondFactor}
        onCancel={flow.cancelSecondFactor}
      />
    );
  }

  if (mode === 'choose' && confirmTarget) {
    return (
      <AuthConfirm
        labels={labels}
        passwordLabels={passwordLabels}
        target={confirmTarget}
        onCodeRefused={flow.confirmCodeRefused}
        onLeave={flow.leaveConfirm}
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
        onBack={() => flow.selectTab('signin')}
        onRecovered={flow.recovered}
        knownPassword={knownPassword}
        initialError={codeError}
        onChoosePassword={flow.choosePassword}
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
        {AUTH_TABS.map((tab) => (
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
            onClick={() => flow.selectTab(tab)}
            onKeyDown={(e) => onTabKey(e, tab)}
            className={`min-h-12 rounded-lg font-semibold ${mode === tab ? 'bg-accent text-navy-950' : 'text-white hover:bg-navy-800'}`}
          >
            {tab === 'signin' ? labels.signInTab : labels.signUpTab}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`auth-panel-${mode}`} aria-labelledby={`auth-tab-${mode}`} className="mt-6">
        {mode === 'signin' ? (
          <AuthSignIn labels={labels} onCodeStep={flow.openCodeStep} onSecondFactor={flow.secondFactor} />
        ) : (
          <AuthSignUp
            labels={labels}
            passwordLabels={passwordLabels}
            onSignedUp={(email, password) => flow.openCodeStep('confirm', email, password)}
          />
        )}
      </div>
    </div>
  );
}
