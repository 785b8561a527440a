import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { type AuthLabels, type AuthMode, type AuthTab, readAuthEntry, tabHref } from '../lib/auth-forms.ts';
import { $auth } from '../stores/auth.ts';
import { supabase } from '../stores/supabase.ts';
import AuthReset from './parts/AuthReset.tsx';
import AuthSignIn from './parts/AuthSignIn.tsx';
import AuthSignUp from './parts/AuthSignUp.tsx';
import { problemToast } from './parts/auth-toast.ts';
import type { PasswordChecklistLabels } from './parts/PasswordChecklist.tsx';

interface Props {
  labels: AuthLabels;
  passwordLabels: PasswordChecklistLabels;
}

const TABS: AuthTab[] = ['signin', 'signup'];

/** Replaces the address without a navigation, e.g. after reading tokens out of it. */
function showUrl(mode: AuthMode) {
  history.replaceState(history.state, '', tabHref(mode));
}

/**
 * The /auth page: Sign In / Sign Up tabs, or the password reset form when the page was opened from a
 * recovery link (code, hash tokens or tab=reset) or a PASSWORD_RECOVERY event arrives.
 */
export default function Auth({ labels, passwordLabels }: Props) {
  // null until the URL has been read and, for a link, its session set.
  const [mode, setMode] = useState<AuthMode | null>(null);
  const modeRef = useRef<AuthMode | null>(null);
  modeRef.current = mode;
  const tabRefs = useRef<Record<AuthTab, HTMLButtonElement | null>>({ signin: null, signup: null });
  // True once a recovery link (or event) gave this page its session: leaving the reset form drops it.
  const recoverySession = useRef(false);

  useEffect(() => {
    const client = supabase();
    let active = true;

    function expired() {
      problemToast(labels, { title: 'linkExpiredTitle', description: 'linkExpiredDescription' });
      showUrl('signin');
      if (active) setMode('signin');
    }

    async function start() {
      const entry = readAuthEntry(location.search, location.hash);
      if (entry.kind === 'link-error') return expired();
      if (entry.kind === 'code' || entry.kind === 'tokens') {
        const { error } =
          entry.kind === 'code'
            ? await client.auth.exchangeCodeForSession(entry.code)
            : await client.auth.setSession({ access_token: entry.accessToken, refresh_token: entry.refreshToken });
        if (error) return expired();
        recoverySession.current = true;
        showUrl('reset');
        if (active) setMode('reset');
        return;
      }
      if (entry.kind === 'reset') {
        if (active) setMode('reset');
        return;
      }
      const { data } = await client.auth.getSession();
      if (data.session && modeRef.current !== 'reset') {
        location.replace('/');
        return;
      }
      if (active) setMode((m) => m ?? entry.tab);
    }

    const unbind = $auth.listen((state) => {
      if (state.event === 'PASSWORD_RECOVERY') {
        recoverySession.current = true;
        showUrl('reset');
        setMode('reset');
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
          <AuthSignIn labels={labels} />
        ) : (
          <AuthSignUp labels={labels} passwordLabels={passwordLabels} />
        )}
      </div>
    </div>
  );
}
