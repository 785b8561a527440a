// Sentiment of a headline by keyword count: more positive words than negative is positive, and so on.
export type RagStatus = 'positive' | 'negative' | 'neutral';

/** Words that read as good news for markets. Lower case, matched as whole words. */
export const POSITIVE_WORDS: readonly string[] = [
  'gain',
  'gains',
  'rise',
  'rises',
  'rising',
  'rose',
  'rally',
  'rallies',
  'surge',
  'surges',
  'soar',
  'soars',
  'jump',
  'jumps',
  'climb',
  'climbs',
  'boost',
  'boosts',
  'growth',
  'grow',
  'grows',
  'profit',
  'profits',
  'record',
  'strong',
  'stronger',
  'beat',
  'beats',
  'upgrade',
  'upgraded',
  'bullish',
  'optimism',
  'optimistic',
  'recovery',
  'rebound',
  'rebounds',
  'high',
  'higher',
  'up',
  'positive',
  'success',
  'win',
  'wins',
];

/** Words that read as bad news for markets. */
export const NEGATIVE_WORDS: readonly string[] = [
  'loss',
  'losses',
  'fall',
  'falls',
  'falling',
  'fell',
  'drop',
  'drops',
  'decline',
  'declines',
  'plunge',
  'plunges',
  'slump',
  'slumps',
  'tumble',
  'tumbles',
  'crash',
  'crashes',
  'slide',
  'slides',
  'weak',
  'weaker',
  'miss',
  'misses',
  'downgrade',
  'downgraded',
  'bearish',
  'fear',
  'fears',
  'concern',
  'concerns',
  'risk',
  'risks',
  'recession',
  'inflation',
  'crisis',
  'low',
  'lower',
  'down',
  'negative',
  'cut',
  'cuts',
  'layoffs',
  'debt',
  'warning',
  'warns',
];

const positive = new Set(POSITIVE_WORDS);
const negative = new Set(NEGATIVE_WORDS);

/** Counts each whole word of `text` against the two lists; a tie (none included) is neutral. */
export function sentimentOf(text: string): RagStatus {
  let score = 0;
  for (const word of text.toLowerCase().match(/[a-z]+(?:'[a-z]+)?/g) ?? []) {
    if (positive.has(word)) score += 1;
    else if (negative.has(word)) score -= 1;
  }
  return score > 0 ? 'positive' : score < 0 ? 'negative' : 'neutral';
}
