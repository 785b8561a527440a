import { describe, expect, it } from 'vitest';
import { averageScore, QUIZ_TIERS, tierFor, tierIndex } from '../../src/lib/quiz-score.ts';

// Five real answers (each 1, 3 or 5): the averages either side of both thresholds.
describe.each([
  [[1, 1, 1, 1, 1], 1, 'Foundation One'],
  [[1, 1, 3, 1, 5], 2.2, 'Foundation One'],
  [[3, 3, 3, 1, 1], 2.2, 'Foundation One'],
  [[3, 3, 3, 3, 1], 2.6, 'Growth One'],
  [[5, 1, 1, 1, 5], 2.6, 'Growth One'],
  [[3, 3, 3, 3, 3], 3, 'Growth One'],
  [[5, 3, 3, 3, 3], 3.4, 'Growth One'],
  [[5, 5, 3, 3, 3], 3.8, 'Momentum One'],
  [[1, 5, 5, 5, 3], 3.8, 'Momentum One'],
  [[5, 5, 5, 5, 5], 5, 'Momentum One'],
])('answers %j', (scores, average, tier) => {
  it(`average ${average} gives ${tier}`, () => {
    expect(averageScore(scores)).toBeCloseTo(average, 10);
    expect(tierFor(scores)).toBe(tier);
  });
});

// The thresholds themselves: "up to 2.33" and "up to 3.66" include the threshold.
describe.each([
  [2.32, 0],
  [2.33, 0],
  [7 / 3, 1], // 2.333..., three answers 1, 1, 5: just above 2.33
  [2.34, 1],
  [3.65, 1],
  [3.66, 1],
  [11 / 3, 2], // 3.666..., three answers 1, 5, 5: just above 3.66
  [3.67, 2],
])('tierIndex(%d)', (average, index) => {
  it(`is ${QUIZ_TIERS[index]}`, () => expect(tierIndex(average)).toBe(index));
});

describe('averageScore', () => {
  it('rejects an empty list', () => {
    expect(() => averageScore([])).toThrow(RangeError);
  });
});
