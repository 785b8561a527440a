// The published consent wordings (supabase/functions/_shared/newsletter-consent.ts) are generated from content:
// the file must be exactly what the list plus the card's current wording renders to. When an editor changes the
// card's `intro` or `consent` line, this fails until the new wording is appended (`-u` writes it), so the
// newsletter function never refuses the version the built card sends, and never accepts one it did not publish.
import { describe, expect, test } from 'vitest';
import { consentVersion } from '../../../src/lib/consent-version.ts';
import {
  type ConsentWording,
  isPublishedConsentVersion,
  PUBLISHED_CONSENT_WORDINGS,
} from '../../../supabase/functions/_shared/newsletter-consent.ts';
import { validateNewsletter } from '../../../supabase/functions/_shared/schemas.ts';
import { labels } from '../../content.ts';

const LIST_FILE = '../../../supabase/functions/_shared/newsletter-consent.ts';
const t = labels('newsletter');
/** The wording the card shows now, and its version, computed as NewsletterCard.astro does. */
const current = { intro: t('intro'), consent: t('consent') };
const currentVersion = consentVersion([current.intro, current.consent]);

/** A string literal as Biome writes it: single quotes unless the text holds more of them than double quotes. */
function literal(text: string): string {
  const singles = text.split("'").length - 1;
  const doubles = text.split('"').length - 1;
  const quote = singles > doubles ? '"' : "'";
  return `${quote}${text.replaceAll('\\', '\\\\').replaceAll(quote, `\\${quote}`)}${quote}`;
}

/** One property line of an entry, broken after the colon where Biome breaks it (past 120 columns). */
function property(key: string, value: string): string {
  const line = `    ${key}: ${literal(value)},`;
  return line.length <= 120 ? line : `    ${key}:\n      ${literal(value)},`;
}

/** The list file for `wordings`, with the header, interface and helper exactly as the module has them. */
function render(source: string, wordings: readonly ConsentWording[]): string {
  const start = source.indexOf('export const PUBLISHED_CONSENT_WORDINGS');
  const end = source.indexOf('];\n', start) + 3;
  const entries = wordings.map((w) =>
    [
      '  {',
      property('version', w.version),
      property('since', w.since),
      property('intro', w.intro),
      property('consent', w.consent),
      '  },',
    ].join('\n'),
  );
  const list = `export const PUBLISHED_CONSENT_WORDINGS: readonly ConsentWording[] = [\n${entries.join('\n')}\n];\n`;
  return `${source.slice(0, start)}${list}${source.slice(end)}`;
}

describe('published consent wordings', () => {
  test("the list holds the card's current wording (run with -u to append it after an edit)", async () => {
    const { readFile } = await import('node:fs/promises');
    const source = await readFile(new URL(LIST_FILE, import.meta.url), 'utf8');
    const known = PUBLISHED_CONSENT_WORDINGS.some((w) => w.version === currentVersion);
    const wordings = known
      ? PUBLISHED_CONSENT_WORDINGS
      : [
          ...PUBLISHED_CONSENT_WORDINGS,
          { version: currentVersion, since: new Date().toISOString().slice(0, 10), ...current },
        ];
    await expect(render(source, wordings)).toMatchFileSnapshot(LIST_FILE);
  });

  test('each entry is the wording its version names, once, with the day it was added', () => {
    for (const w of PUBLISHED_CONSENT_WORDINGS) {
      expect(consentVersion([w.intro, w.consent]), w.version).toBe(w.version);
      expect(w.since).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    const versions = PUBLISHED_CONSENT_WORDINGS.map((w) => w.version);
    expect(new Set(versions).size).toBe(versions.length);
    expect(PUBLISHED_CONSENT_WORDINGS.find((w) => w.version === currentVersion)).toMatchObject(current);
  });

  test('the function accepts the published versions and refuses any other, naming the field', () => {
    expect(isPublishedConsentVersion(currentVersion)).toBe(true);
    expect(validateNewsletter({ email: 'ann@example.com', consentVersion: currentVersion })).toEqual({
      ok: true,
      data: { email: 'ann@example.com', consentVersion: currentVersion },
    });
    const outdated = 'This form is out of date: reload the page and try again.';
    expect(isPublishedConsentVersion('ffffffffffffffff')).toBe(false);
    for (const [consent, error] of [
      ['ffffffffffffffff', outdated],
      ['0123456789abcdef', outdated],
      [currentVersion.toUpperCase(), 'consentVersion must be 16 hexadecimal digits.'],
      ['v1 of the form', 'consentVersion must be 16 hexadecimal digits.'],
      [undefined, 'consentVersion is required: the version of the wording the person agreed to.'],
      [null, 'consentVersion is required: the version of the wording the person agreed to.'],
      [42, 'consentVersion must be text.'],
    ] as const) {
      expect(validateNewsletter({ email: 'ann@example.com', consentVersion: consent })).toEqual({
        ok: false,
        field: 'consentVersion',
        error,
      });
    }
  });
});
