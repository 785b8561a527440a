// Password hashing (bcrypt, cost 10 and the $2a$ form GoTrue writes) and GoTrue's strength policy.
import { createRequire } from 'node:module';
import { AuthError, WeakPasswordError } from './errors.ts';

interface Bcrypt {
  hash(data: string, saltOrRounds: string | number): Promise<string>;
  compare(data: string, encrypted: string): Promise<boolean>;
  genSalt(rounds: number, minor?: 'a' | 'b'): Promise<string>;
}

const require = createRequire(import.meta.url);

// The native binding hashes on libuv's thread pool, off the event loop; bcryptjs is the pure-JS fallback.
function loadBcrypt(): { impl: Bcrypt; native: boolean } {
  try {
    return { impl: require('bcrypt') as Bcrypt, native: true };
  } catch {
    const js = require('bcryptjs') as {
      hash(s: string, salt: string): Promise<string>;
      compare(s: string, hash: string): Promise<boolean>;
      genSalt(rounds: number): Promise<string>;
    };
    return {
      impl: {
        hash: (data, salt) => js.hash(data, String(salt)),
        compare: js.compare,
        genSalt: async (rounds) => (await js.genSalt(rounds)).replace(/^\$2b\$/, '$2a$'),
      },
      native: false,
    };
  }
}

const { impl: bcrypt, native } = loadBcrypt();
export const bcryptIsNative = native;

/** GoTrue's bcrypt cost. */
export const BCRYPT_COST = 10;
/** bcrypt reads at most 72 bytes. */
export const MAX_PASSWORD_LENGTH = 72;

export async function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, await bcrypt.genSalt(BCRYPT_COST, 'a'));
}

export async function verifyPassword(password: string, hash: string | null | undefined): Promise<boolean> {
  if (!hash || !hash.startsWith('$2')) return false;
  try {
    return await bcrypt.compare(password, hash);
  } catch {
    return false;
  }
}

export interface PasswordPolicy {
  passwordMinLength: number;
  passwordRequiredCharacters: string[];
}

/** The reasons a password fails the policy, as GoTrue's checkPasswordStrength words them; null when it passes. */
export function weakPassword(policy: PasswordPolicy, password: string): WeakPasswordError | null {
  const reasons: string[] = [];
  const messages: string[] = [];
  // GoTrue counts bytes (Go's len), not characters.
  if (Buffer.byteLength(password) < policy.passwordMinLength) {
    reasons.push('length');
    messages.push(`Password should be at least ${policy.passwordMinLength} characters.`);
  }
  for (const set of policy.passwordRequiredCharacters) {
    if (set !== '' && ![...set].some((ch) => password.includes(ch))) {
      reasons.push('characters');
      messages.push(
        `Password should contain at least one character of each: ${policy.passwordRequiredCharacters.join(', ')}.`,
      );
      break;
    }
  }
  return reasons.length ? new WeakPasswordError(messages.join(' '), reasons) : null;
}

/** checkPasswordStrength: too long is 400 validation_failed, weak is 422 weak_password. */
export function checkPasswordStrength(policy: PasswordPolicy, password: string): void {
  if (Buffer.byteLength(password) > MAX_PASSWORD_LENGTH) {
    throw new AuthError(400, 'validation_failed', `Password cannot be longer than ${MAX_PASSWORD_LENGTH} characters`);
  }
  const weak = weakPassword(policy, password);
  if (weak) throw weak;
}
