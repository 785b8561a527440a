import { useStore } from '@nanostores/preact';
import { useState } from 'react';
import Button from '../components/ui/Button.tsx';
import type { CardContent, MemberFrame } from '../lib/member-content.ts';
import { $profile } from '../stores/profile.ts';
import { markSigningOut } from '../stores/sign-out.ts';
import { browserLiveSocket } from '../stores/signal-live-browser.ts';
import { supabase } from '../stores/supabase.ts';
import ComingSoonCards from './member/ComingSoonCards.tsx';
import type { DashboardLabels } from './member/labels.ts';
import MemberLoading from './member/MemberLoading.tsx';
import MemberShell from './member/MemberShell.tsx';
import SignalFeed from './member/SignalFeed.tsx';

interface Props {
  frame: MemberFrame;
  labels: DashboardLabels;
  tools: { heading: string; cards: CardContent[] };
}

/** /dashboard: the members' signal feed, the tool cards (Coming Soon) and the account status, behind the auth gate. */
export default function Dashboard({ frame, labels, tools }: Props) {
  return (
    <MemberShell frame={frame}>
      {() => <DashboardContent labels={labels} tools={tools} signInHref={frame.signInHref} />}
    </MemberShell>
  );
}

function DashboardContent({ labels, tools, signInHref }: Omit<Props, 'frame'> & { signInHref: string }) {
  const profile = useStore($profile);
  const [leaving, setLeaving] = useState(false);

  if (profile.status === 'error') {
    const goToSignIn = async () => {
      setLeaving(true);
      // This function navigates, once the session is gone; the gate must not send the page to /auth as well.
      markSigningOut();
      // Only this browser's session: the profile, not the account, is what failed.
      await supabase()
        .auth.signOut({ scope: 'local' })
        .catch((err: unknown) => console.error('Local sign out failed:', err));
      location.replace(signInHref);
    };
    return (
      <div role="alert" className="mt-10 rounded-2xl border border-danger/50 bg-navy-900 p-6">
        <p className="text-lg">{labels.profileError}</p>
        <Button onClick={goToSignIn} disabled={leaving} className="mt-4">
          {labels.goToSignIn}
        </Button>
      </div>
    );
  }
  if (profile.status !== 'loaded') return <MemberLoading text={labels.loading} />;

  const status: [string, string][] = [
    [labels.membershipLabel, labels.membership],
    [labels.signalsAccessedLabel, labels.signalsAccessed],
    [labels.lastActiveLabel, labels.lastActive],
  ];
  return (
    <>
      <SignalFeed labels={labels} reader={{ from: supabase().from }} socket={browserLiveSocket(supabase())} />
      <ComingSoonCards heading={tools.heading} cards={tools.cards} />
      <section aria-labelledby="account-status" className="mt-10 rounded-2xl border border-navy-700 bg-navy-900 p-6">
        <h2 id="account-status" className="text-2xl font-semibold">
          {labels.statusHeading}
        </h2>
        <dl className="mt-4 grid gap-4 sm:grid-cols-3">
          {status.map(([term, value]) => (
            <div key={term} className="rounded-xl bg-navy-800 p-4">
              <dt className="text-sm text-muted">{term}</dt>
              <dd className="mt-1 text-xl font-semibold">{value}</dd>
            </div>
          ))}
        </dl>
        <Button variant="outline" disabled className="mt-6">
          {labels.comingSoon}
        </Button>
      </section>
    </>
  );
}
