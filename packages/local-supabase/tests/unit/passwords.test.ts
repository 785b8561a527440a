import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/auth/passwords.ts';

// Hashes the stack must keep accepting: the known vector of Go's x/crypto/bcrypt (the library GoTrue hashes with),
// and hashes @node-rs/bcrypt 2.0.0 wrote ($2a$ at cost 10, $2b$ at cost 4) before the stack moved to 1.10.8.
const STORED: [password: string, hash: string][] = [
  ['allmine', '$2a$10$XajjQvNhvvRt5GSeFk1xFeyqRrsxkhBkUiQeg0dt.wU1qD4aFDcga'],
  ['password123', '$2a$10$/re1iV4X9SkUb55dE/.XsO3OV33jpceDwTa0l4q2PKdVdfiRZtbv2'],
  ['Pässwörd ✓ 72-bytes-max', '$2a$10$j3GGqA8wPiIqF5Qk.gh0tebI/sDmGUFhAJlV/vc0cKgdGx7WOqj3W'],
  ['password123', '$2b$04$nLwwrfgMGTaYoc9Jb8usSuiNUWSkW5ApVLYkeHQcYQnfAP2QoZ.ne'],
  ['', '$2b$04$oP7uD.ELgXbaBtDpzIf/9ent9..9BKnCu.f5PcXY89yiz0ayloewK'],
];

describe('verifyPassword', () => {
  it.each(STORED)('accepts %j against %s and refuses another password', async (password, hash) => {
    expect(await verifyPassword(password, hash)).toBe(true);
    expect(await verifyPassword(`${password}!`, hash)).toBe(false);
  });

  it('refuses a missing or non-bcrypt hash', async () => {
    expect(await verifyPassword('allmine', null)).toBe(false);
    expect(await verifyPassword('allmine', 'plain')).toBe(false);
    expect(await verifyPassword('allmine', '$2a$10$short')).toBe(false);
  });
});

describe('hashPassword', () => {
  it('writes the $2a$ form at cost 10, as GoTrue does, and the hash verifies', async () => {
    const hash = await hashPassword('Pässwörd ✓');
    expect(hash).toMatch(/^\$2a\$10\$[./A-Za-z0-9]{53}$/);
    expect(await verifyPassword('Pässwörd ✓', hash)).toBe(true);
    expect(await verifyPassword('Pässwörd', hash)).toBe(false);
  });
});
