// The version of a form's consent wording: the first 16 hex digits of the SHA-256 of its texts, one per line.
// Computed at build time from content/ and sent with the form, so the stored consent names the exact words the
// person saw; an edited sentence gets a new version by itself (git history maps a version back to its words).
import { createHash } from 'node:crypto';

export function consentVersion(wording: readonly string[]): string {
  return createHash('sha256').update(wording.join('\n')).digest('hex').slice(0, 16);
}
