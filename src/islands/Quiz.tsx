import { useLayoutEffect, useRef, useState } from 'react';
import type { QuizData } from '../content/schemas.ts';
import { fill } from '../lib/fill-template.ts';
import { averageScore, QUIZ_FLAG_MS, tierIndex } from '../lib/quiz-score.ts';
import QuizResult, { type BandFigures } from './QuizResult.tsx';
import type { BandLabels } from './quiz/labels.ts';

interface Props {
  quiz: QuizData;
  /** The signal band of each tier, in the order of quiz.results. */
  bands: BandFigures[];
  /** The names of the band's figures. */
  bandLabels: BandLabels;
}

// Fixed classes rather than an inline style, which the pages' CSP does not allow; the quiz has 5 questions.
const widths = ['w-1/5', 'w-2/5', 'w-3/5', 'w-4/5', 'w-full'];

/** The risk-profile quiz: one question at a time, then the tier the average score points to. */
export default function Quiz({ quiz, bands, bandLabels }: Props) {
  const { questions, labels } = quiz;
  const [scores, setScores] = useState<number[]>([]);
  const [flag, setFlag] = useState(false);
  // Focus moves to the new heading only after the visitor answers or retakes, never on the first render.
  const moveFocus = useRef(false);
  const heading = useRef<HTMLHeadingElement>(null);

  const index = scores.length;
  const done = index === questions.length;

  // Layout effects: the focus move and the flag are in the first frame that shows the new step or the result
  // (Preact runs a plain effect after that frame).
  useLayoutEffect(() => {
    if (!moveFocus.current) return;
    moveFocus.current = false;
    heading.current?.focus();
  });

  useLayoutEffect(() => {
    if (!done) return;
    setFlag(true);
    const timer = setTimeout(() => setFlag(false), QUIZ_FLAG_MS);
    return () => clearTimeout(timer);
  }, [done]);

  const answer = (score: number) => {
    moveFocus.current = true;
    setScores((previous) => [...previous, score]);
  };
  const retake = () => {
    moveFocus.current = true;
    setFlag(false);
    setScores([]);
  };

  if (done) {
    const average = averageScore(scores);
    const tier = tierIndex(average);
    return (
      <QuizResult
        headingRef={heading}
        result={quiz.results[tier]}
        band={bands[tier]}
        bandLabels={bandLabels}
        labels={labels}
        links={quiz.links}
        average={average}
        flag={flag}
        onRetake={retake}
      />
    );
  }

  const question = questions[index];
  const count = fill(labels.questionCount, { n: index + 1, total: questions.length });
  const options = [...question.options].sort((a, b) => a.score - b.score);
  const headingId = `quiz-question-${question.id}`;

  return (
    <section aria-labelledby={headingId} className="rounded-2xl border border-navy-700 bg-navy-900 p-6 sm:p-8">
      <div className="flex items-center justify-between gap-4 text-sm font-semibold text-muted">
        <span id="quiz-progress-label">{labels.progress}</span>
        <span>{count}</span>
      </div>
      <div
        role="progressbar"
        aria-labelledby="quiz-progress-label"
        aria-valuemin={0}
        aria-valuemax={questions.length}
        aria-valuenow={index + 1}
        aria-valuetext={count}
        className="mt-2 h-2 overflow-hidden rounded-full bg-navy-700"
      >
        <div
          className={`h-full rounded-full bg-accent motion-safe:transition-[width] motion-safe:duration-300 ${widths[index]}`}
        />
      </div>
      <h2 id={headingId} ref={heading} tabIndex={-1} className="mt-8 text-2xl font-bold text-balance sm:text-3xl">
        {question.question}
      </h2>
      <ul aria-label={labels.options} className="mt-6 flex flex-col gap-3">
        {options.map((option) => (
          <li key={option.text}>
            <button
              type="button"
              onClick={() => answer(option.score)}
              className="flex min-h-14 w-full items-center gap-4 rounded-xl border border-navy-600 bg-navy-800 px-5 py-3 text-left text-lg font-medium transition-colors hover:border-accent hover:bg-navy-700"
            >
              <span aria-hidden="true" className="text-2xl">
                {option.emoji}
              </span>
              {option.text}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
