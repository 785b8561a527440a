// Password hashing (bcrypt, cost 10 and the $2a$ form GoTrue writes) and GoTrue's strength policy.
import { hash, verify } from '@node-rs/bcrypt';
import { AuthError, WeakPasswordError } from './errors.ts';

/** GoTrue's bcrypt cost. */
export const BCRYPT_COST = 10;
/** bcrypt reads at most 72 bytes. */
export const MAX_PASSWORD_LENGTH = 72;

/**
 * A bcrypt hash at cost 10, in the $2a$ form GoTrue writes; hashed on libuv's thread pool, off the event loop.
 * @node-rs/bcrypt 1.10.8 (the newest release with a binding served for every platform) writes $2b$: the two prefixes name the
 * same computation for passwords under 255 bytes (ours stop at 72), so only the prefix changes.
 */
export async function hashPassword(password: string): Promise<string> {
  return (await hash(password, BCRYPT_COST)).replace(/^\$2b\$/, '$2a$');
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  if (!stored || !stored.startsWith('$2')) return false;
  try {
    return await verify(password, stored);
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
