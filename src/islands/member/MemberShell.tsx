import { useStore } from '@nanostores/preact';
import type { User } from '@supabase/supabase-js';
import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import Button from '../../components/ui/Button.tsx';
import type { MemberFrame } from '../../lib/member-content.ts';
import { gateView, type SecondFactor } from '../../lib/member-gate.ts';
import { needsSecondFactor } from '../../lib/mfa.ts';
import { isSidebarShortcut, readSidebarExpanded, sidebarCookie } from '../../lib/sidebar-state.ts';
import { $auth } from '../../stores/auth.ts';
import { clearProfile, loadProfile } from '../../stores/profile.ts';
import { isSigningOut } from '../../stores/sign-out.ts';
import { supabase } from '../../stores/supabase.ts';
import MemberLoading from './MemberLoading.tsx';
import SidebarPanel from './SidebarPanel.tsx';
import SidebarSheet from './SidebarSheet.tsx';
import SvgIcon from './SvgIcon.tsx';

interface Props {
  frame: MemberFrame;
  /** Shown to a visitor without a session instead of sending them to sign in (the analysis page). */
  signedOut?: ReactNode;
  children: (user: User) => ReactNode;
}

/**
 * The auth gate and frame of a signed-in page. Until supabase-js has read the session (its first auth
 * event) only the spinner renders, on the server too, so no guessed state ships; without a session the
 * page goes to sign in; with one, the sidebar and the page's content.
 */
export default function MemberShell({ frame, signedOut, children }: Props) {
  const auth = useStore($auth);
  const [secondFactor, setSecondFactor] = useState<{ userId: string; state: SecondFactor } | null>(null);
  const token = auth.session?.access_token;
  const sessionUser = auth.session?.user.id;
  // $auth may already hold the header's storage guess (no event): only supabase-js's own report counts.
  const view = gateView(auth, {
    showSignedOut: signedOut !== undefined,
    signingOut: isSigningOut(),
    // Read again for each access token (a new sign-in or the code step changes the level); meanwhile the
    // member's last answer stands, so a refreshed token does not unmount the page and its forms.
    secondFactor: sessionUser && secondFactor?.userId === sessionUser ? secondFactor.state : 'checking',
  });
  const user = view === 'member' ? auth.user : null;
  const userId = user?.id;

  useEffect(() => {
    supabase();
  }, []);

  useEffect(() => {
    if (!token || !sessionUser) return;
    let active = true;
    // The level comes from the access token's aal and the session's factors: no request.
    supabase()
      .auth.mfa.getAuthenticatorAssuranceLevel()
      .then(({ data }) => {
        if (active) setSecondFactor({ userId: sessionUser, state: needsSecondFactor(data) ? 'needed' : 'met' });
      })
      .catch(() => {
        // The level could not be read: the code step decides (it sends a member without a factor on).
        if (active) setSecondFactor({ userId: sessionUser, state: 'needed' });
      });
    return () => {
      active = false;
    };
  }, [token, sessionUser]);

  useEffect(() => {
    // A password-only session of a member with two-factor: the code step first (the database agrees).
    if (view === 'second-factor') location.replace('/auth?tab=mfa');
  }, [view]);

  useEffect(() => {
    if (userId) loadProfile(userId);
    else if (view !== 'loading' && view !== 'second-factor') clearProfile();
  }, [userId, view]);

  useEffect(() => {
    // Without a session (never signed in, expired, or signed out in another tab) the page goes to sign in.
    if (view === 'redirect') location.replace(frame.signInHref);
  }, [view, frame.signInHref]);

  if (view === 'signed-out') return <>{signedOut}</>;
  if (view !== 'member' || !user) return <MemberLoading heading={frame.heading} text={frame.loading} />;
  return (
    <SignedInFrame frame={frame} email={user.email ?? ''}>
      {children(user)}
    </SignedInFrame>
  );
}

interface FrameProps {
  frame: MemberFrame;
  email: string;
  children: ReactNode;
}

function SignedInFrame({ frame, email, children }: FrameProps) {
  const { sidebar } = frame;
  const [expanded, setExpanded] = useState(() => readSidebarExpanded(document.cookie));
  const [sheetOpen, setSheetOpen] = useState(false);
  const trigger = useRef<HTMLButtonElement>(null);

  // The cookie is written by the toggle itself, so the seven days count from the member's last choice and it is
  // stored when the rail changes, not an effect later (Preact runs effects after the next frame).
  const shown = useRef(expanded);
  const toggleRail = useCallback(() => {
    shown.current = !shown.current;
    // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from Firefox and older Safari
    document.cookie = sidebarCookie(shown.current);
    setExpanded(shown.current);
  }, []);
  const closeSheet = useCallback(() => setSheetOpen(false), []);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!isSidebarShortcut(event)) return;
      event.preventDefault();
      if (matchMedia('(min-width: 48rem)').matches) toggleRail();
      else setSheetOpen((open) => !open);
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [toggleRail]);

  const toggleLabel = expanded ? sidebar.labels.collapse : sidebar.labels.expand;
  return (
    <div className="mx-auto flex w-full max-w-7xl">
      <div
        id="member-sidebar"
        data-state={expanded ? 'expanded' : 'collapsed'}
        className={`sticky top-header hidden h-[calc(100vh-var(--spacing-header))] shrink-0 flex-col gap-4 self-start overflow-y-auto border-r border-navy-700 py-4 transition-[width] md:flex ${
          expanded ? 'w-64 px-3' : 'w-12 px-0'
        }`}
      >
        <button
          type="button"
          onClick={toggleRail}
          aria-expanded={expanded}
          aria-controls="member-sidebar"
          aria-label={toggleLabel}
          title={`${toggleLabel} (${sidebar.labels.shortcut})`}
          aria-keyshortcuts="Control+B Meta+B"
          className={`flex size-12 items-center justify-center rounded-lg text-white hover:bg-white/10 ${expanded ? 'self-end' : 'self-center'}`}
        >
          <SvgIcon paths={sidebar.toggleIcon} />
        </button>
        <SidebarPanel content={sidebar} current={frame.current} email={email} collapsed={!expanded} idPrefix="rail" />
      </div>
      <div className="min-w-0 flex-1 px-4 py-8 sm:px-6 md:py-12 lg:px-10">
        <Button
          ref={trigger}
          variant="outline"
          onClick={() => setSheetOpen(true)}
          aria-haspopup="dialog"
          aria-expanded={sheetOpen}
          aria-keyshortcuts="Control+B Meta+B"
          className="mb-6 md:hidden"
        >
          <SvgIcon paths={sidebar.toggleIcon} />
          {sidebar.labels.open}
        </Button>
        <h1 className="text-4xl font-bold text-balance">{frame.heading}</h1>
        {frame.lead && <p className="mt-3 text-lg text-muted">{frame.lead}</p>}
        {children}
      </div>
      {sheetOpen && (
        <SidebarSheet
          content={sidebar}
          current={frame.current}
          email={email}
          onClose={closeSheet}
          returnFocus={trigger}
        />
      )}
    </div>
  );
}
