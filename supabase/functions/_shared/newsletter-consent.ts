// Every wording of the newsletter card's consent that the site has published, generated from
// content/labels/newsletter.md by tests/unit/functions/newsletter-consent.test.ts: it fails when the card's
// current wording is missing here, and `npx vitest run --project unit tests/unit/functions/newsletter-consent.test.ts
// -u` appends it. Append only: a stored sign-up names its wording by version, and a page built before a change
// still sends the old version. Deploy the functions before the site when an entry is added.
//
// A version is the first 16 hex digits of the SHA-256 of the card's `intro` and `consent` lines joined by a
// newline (src/lib/consent-version.ts, which the card computes at build time); `since` is the day it was added.

export interface ConsentWording {
  version: string;
  since: string;
  intro: string;
  consent: string;
}

export const PUBLISHED_CONSENT_WORDINGS: readonly ConsentWording[] = [
  {
    version: '58fcdf3ce8919868',
    since: '2026-11-24',
    intro: "Signal updates and market insights from our AI agents. We'll ask you to confirm your address first.",
    consent:
      "We'll email you signal updates and market insights until you unsubscribe, with one click in any of our emails.",
  },
];

/** Whether `version` names a wording the site has published. */
export function isPublishedConsentVersion(version: string): boolean {
  return PUBLISHED_CONSENT_WORDINGS.some((wording) => wording.version === version);
}
