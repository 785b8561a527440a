// Risk-profile quiz scoring: the average of the chosen options' scores picks the tier.

export const QUIZ_TIERS = ['Foundation One', 'Growth One', 'Momentum One'] as const;
export type QuizTier = (typeof QUIZ_TIERS)[number];

/** Averages up to 2.33 give Foundation One, up to 3.66 Growth One, anything above Momentum One. */
export const QUIZ_THRESHOLDS = [2.33, 3.66] as const;

/** How long the celebratory flag shows on the result, in ms. */
export const QUIZ_FLAG_MS = 3000;

export function averageScore(scores: readonly number[]): number {
  if (scores.length === 0) throw new RangeError('averageScore needs at least one score');
  return scores.reduce((sum, score) => sum + score, 0) / scores.length;
}

/** Index into QUIZ_TIERS (and the quiz file's results) for an average score. */
export function tierIndex(average: number): 0 | 1 | 2 {
  if (average <= QUIZ_THRESHOLDS[0]) return 0;
  if (average <= QUIZ_THRESHOLDS[1]) return 1;
  return 2;
}

export function tierFor(scores: readonly number[]): QuizTier {
  return QUIZ_TIERS[tierIndex(averageScore(scores))];
}
