import type { RefObject } from 'react';
import Button from '../components/ui/Button.tsx';
import type { Cta, QuizData } from '../content/schemas.ts';
import { fill } from '../lib/fill-template.ts';
import { BAND_LABEL_KEYS, type BandLabels } from './quiz/labels.ts';

export interface BandFigures {
  profitFactor: string;
  maxDrawdown: string;
  winRate: string;
  stopRules: string;
  maxTrades: number;
  frequency: string;
}

type Result = QuizData['results'][number];

interface Props {
  headingRef: RefObject<HTMLHeadingElement | null>;
  result: Result;
  band: BandFigures;
  bandLabels: BandLabels;
  labels: QuizData['labels'];
  links: Cta[];
  average: number;
  flag: boolean;
  onRetake: () => void;
}

// Full class names, so Tailwind finds them in this file.
const tones: Record<Result['colour'], { border: string; text: string; chip: string }> = {
  green: { border: 'border-accent', text: 'text-accent', chip: 'bg-accent text-navy-950' },
  blue: { border: 'border-sky-400', text: 'text-sky-300', chip: 'bg-sky-300 text-navy-950' },
  purple: { border: 'border-violet-400', text: 'text-violet-300', chip: 'bg-violet-300 text-navy-950' },
  gold: { border: 'border-gold', text: 'text-gold', chip: 'bg-gold text-navy-950' },
  red: { border: 'border-danger', text: 'text-danger', chip: 'bg-danger text-navy-950' },
};

/** The quiz's result: the matched tier in its colour, its band's figures, links and Retake Quiz. */
export default function QuizResult({ headingRef, result, band, bandLabels, labels, links, average, ...rest }: Props) {
  const tone = tones[result.colour];
  return (
    <section
      aria-labelledby="quiz-result-heading"
      data-tier-colour={result.colour}
      className={`rounded-2xl border-2 ${tone.border} bg-navy-900 p-6 sm:p-8`}
    >
      <p role="status" className="min-h-10">
        {rest.flag && (
          <span className="inline-flex rounded-full bg-gold/15 px-4 py-2 text-sm font-semibold text-gold motion-safe:animate-bounce">
            {labels.celebration}
          </span>
        )}
      </p>
      <p className="mt-4 text-sm font-semibold tracking-wide text-muted uppercase">{labels.resultEyebrow}</p>
      <h2
        id="quiz-result-heading"
        ref={headingRef}
        tabIndex={-1}
        className={`mt-2 text-3xl font-bold sm:text-4xl ${tone.text}`}
      >
        {result.tier}
      </h2>
      <p className="mt-3">
        <span className={`inline-flex rounded-full px-3 py-1 text-sm font-semibold ${tone.chip}`}>{result.style}</span>
      </p>
      <p className="mt-4 text-lg text-muted">{result.description}</p>
      <p className="mt-2 text-sm text-muted">{fill(labels.averageScore, { average: average.toFixed(1) })}</p>

      <h3 className="mt-8 text-lg font-semibold">{labels.bandHeading}</h3>
      <dl className="mt-3 grid gap-x-6 gap-y-3 sm:grid-cols-2">
        {BAND_LABEL_KEYS.map((key) => (
          <div key={key} className="rounded-lg bg-navy-800 px-4 py-3">
            <dt className="text-sm text-muted">{bandLabels[key]}</dt>
            <dd className="font-semibold">{band[key]}</dd>
          </div>
        ))}
      </dl>

      <div className="mt-8 flex flex-wrap gap-3">
        {links.map((link) => (
          <Button key={link.href} href={link.href} variant={link.variant ?? 'secondary'}>
            {link.label}
          </Button>
        ))}
        <Button variant="ghost" onClick={rest.onRetake}>
          {labels.retake}
        </Button>
      </div>
    </section>
  );
}
