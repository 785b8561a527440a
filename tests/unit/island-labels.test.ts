import { describe, expect, it } from 'vitest';
import { AUTH_LABEL_KEYS, PASSWORD_CHECKLIST_KEYS } from '../../src/islands/auth/labels.ts';
import { ANALYSIS_LABEL_KEYS, DASHBOARD_LABEL_KEYS } from '../../src/islands/member/labels.ts';
import { NEWS_LABEL_KEYS } from '../../src/islands/news/labels.ts';
import { BAND_LABEL_KEYS } from '../../src/islands/quiz/labels.ts';
import { SETTINGS_LABEL_KEYS } from '../../src/islands/settings/labels.ts';
import { PASSWORD_RULES } from '../../supabase/functions/_shared/password.ts';
import { labels } from '../content.ts';

// Each island's key list against the content file its page picks from (the build fails on a missing key too;
// this says which list and which file before a build).
describe.each<[string, readonly string[]]>([
  ['auth', AUTH_LABEL_KEYS],
  ['password', PASSWORD_CHECKLIST_KEYS],
  ['settings', SETTINGS_LABEL_KEYS],
  ['dashboard', DASHBOARD_LABEL_KEYS],
  ['analysis', ANALYSIS_LABEL_KEYS],
  ['news', NEWS_LABEL_KEYS],
  ['signals', BAND_LABEL_KEYS],
])('content/labels/%s.md', (area, keys) => {
  it('has a text for every key of the island', () => {
    const t = labels(area);
    for (const key of keys) expect(t(key).trim(), key).not.toBe('');
  });

  it('is asked for each key once', () => {
    expect(new Set(keys).size).toBe(keys.length);
  });
});

it('the password checklist has a label for every password rule', () => {
  expect(PASSWORD_CHECKLIST_KEYS).toEqual(expect.arrayContaining([...PASSWORD_RULES]));
});
