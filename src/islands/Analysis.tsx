import type { CardContent, MemberFrame } from '../lib/member-content.ts';
import ComingSoonCards from './member/ComingSoonCards.tsx';
import type { AnalysisLabels } from './member/labels.ts';
import MemberShell from './member/MemberShell.tsx';

interface Props {
  frame: MemberFrame;
  labels: AnalysisLabels;
  /** Where the sign-in link goes (the sign-in tab of /auth). */
  signInLink: string;
  panel: { heading: string; cards: CardContent[] };
}

/**
 * /analysis: the Coming Soon panel for members. A visitor without a session is told to sign in, with a
 * link, rather than sent away: the page says what it offers before asking for an account.
 */
export default function Analysis({ frame, labels, signInLink, panel }: Props) {
  const signedOut = (
    <div className="mx-auto max-w-3xl px-4 py-16 text-center sm:px-6">
      <h1 className="text-4xl font-bold">{frame.heading}</h1>
      <p className="mt-6 text-lg text-muted">{labels.signedOut}</p>
      <a
        href={signInLink}
        className="mt-8 inline-flex min-h-12 items-center rounded-lg bg-accent px-5 font-semibold text-navy-950 no-underline hover:bg-accent-strong"
      >
        {labels.signIn}
      </a>
    </div>
  );
  return (
    <MemberShell frame={frame} signedOut={signedOut}>
      {() => <ComingSoonCards heading={panel.heading} cards={panel.cards} />}
    </MemberShell>
  );
}
