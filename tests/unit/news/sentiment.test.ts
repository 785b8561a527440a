import { describe, expect, test } from 'vitest';
import { NEGATIVE_WORDS, POSITIVE_WORDS, sentimentOf } from '../../../supabase/functions/news/sentiment.ts';

describe('sentimentOf: more positive words is positive, more negative is negative, a tie is neutral', () => {
  test.each([
    ['Stocks rally as profits surge', 'positive'],
    ['Pound slides as recession fears deepen', 'negative'],
    ['Markets wait for the central bank', 'neutral'],
    ['Shares rise despite losses', 'neutral'],
    ['Gains, gains and a loss', 'positive'],
    ['GAINS in capitals count', 'positive'],
    ['Upgrade beats a downgrade, then a fall and a drop', 'negative'],
    ['Words inside words do not count: uprising, crashed, lowercase', 'neutral'],
    ['', 'neutral'],
  ])('%s -> %s', (text, expected) => {
    expect(sentimentOf(text)).toBe(expected);
  });

  test('the two word lists share no word', () => {
    expect(POSITIVE_WORDS.filter((w) => NEGATIVE_WORDS.includes(w))).toEqual([]);
  });
});
