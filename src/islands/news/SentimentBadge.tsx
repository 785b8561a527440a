import type { Sentiment } from '../../lib/news-answer.ts';

interface Props {
  sentiment: Sentiment;
  /** Its accessible name, e.g. 'Positive sentiment'. */
  label: string;
}

const tones: Record<Sentiment, string> = {
  positive: 'bg-green-500 text-green-950',
  negative: 'bg-red-500 text-red-950',
  neutral: 'bg-yellow-400 text-yellow-950',
};

// Up, down and right arrows.
const paths: Record<Sentiment, string> = {
  positive: 'M12 19V5m-6 6 6-6 6 6',
  negative: 'M12 5v14m6-6-6 6-6-6',
  neutral: 'M5 12h14m-6-6 6 6-6 6',
};

/** A coloured circle with an arrow: green up, red down, yellow right. */
export default function SentimentBadge({ sentiment, label }: Props) {
  return (
    <span
      role="img"
      aria-label={label}
      title={label}
      data-sentiment={sentiment}
      className={`inline-flex size-7 shrink-0 items-center justify-center rounded-full ${tones[sentiment]}`}
    >
      <svg viewBox="0 0 24 24" className="size-4" fill="none" stroke="currentColor" strokeWidth={3} aria-hidden="true">
        <path d={paths[sentiment]} strokeLinecap="round" strokeLinejoin="round" />
      </svg>
    </span>
  );
}
