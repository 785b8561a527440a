// `node scripts/remove-factor.ts <email> [factor-id]`: an operator's last resort for a member locked out by a
// two-factor factor they cannot use (someone else's authenticator app, or a lost phone), after the identity
// check of docs/operations.md. Removes the factor (every factor of the member when no id is given) and signs
// the member out everywhere, through the admin API of the project SUPABASE_URL names with
// SUPABASE_SERVICE_ROLE_KEY (or SUPABASE_SECRET_KEY). Signing out: the member's password is replaced by a
// random one, which ends every session (the taker's too), so the member chooses a new one with "Forgot
// password?". Bad input changes nothing and exits 1.
import { randomBytes } from 'node:crypto';
import { createClient, type Factor, type SupabaseClient, type User } from '@supabase/supabase-js';

export interface Removal {
  user: User;
  removed: Factor[];
}

/** A refusal the operator can act on: printed as it is, and nothing was changed. */
export class OperatorError extends Error {}

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The member with this address (the admin API lists users a page at a time). */
async function findMember(admin: SupabaseClient, email: string): Promise<User | undefined> {
  const wanted = email.toLowerCase();
  const perPage = 1000;
  for (let page = 1; ; page++) {
    const { data, error } = await admin.auth.admin.listUsers({ page, perPage });
    if (error) throw new OperatorError(`Could not list the project's users: ${error.message}`);
    const hit = data.users.find((u) => u.email?.toLowerCase() === wanted);
    if (hit || data.users.length < perPage) return hit;
  }
}

/** A random password the project's policy accepts (at least one of each character class). */
function randomPassword(): string {
  return `${randomBytes(30).toString('base64url')}aA1!`;
}

const factorLabel = (f: Factor) =>
  `${f.id} (${f.factor_type}, ${f.status}${f.friendly_name ? `, "${f.friendly_name}"` : ''}, added ${f.created_at})`;

/** Removes the member's factor (or all of them) and ends every session of the member. */
export async function removeFactor(admin: SupabaseClient, email: string, factorId?: string): Promise<Removal> {
  if (!EMAIL.test(email)) throw new OperatorError(`"${email}" is not an email address.`);
  if (factorId !== undefined && !UUID.test(factorId)) {
    throw new OperatorError(`"${factorId}" is not a factor id (a UUID, as the member's factor list shows).`);
  }
  const user = await findMember(admin, email);
  if (!user) throw new OperatorError(`No member has the address ${email}.`);
  const { data, error } = await admin.auth.admin.mfa.listFactors({ userId: user.id });
  if (error) throw new OperatorError(`Could not list the factors of ${email}: ${error.message}`);
  const factors = data.factors;
  if (factors.length === 0) throw new OperatorError(`${email} has no two-factor factor: nothing to remove.`);
  const chosen = factorId === undefined ? factors : factors.filter((f) => f.id === factorId.toLowerCase());
  if (chosen.length === 0) {
    throw new OperatorError(
      `${email} has no factor ${factorId}. Their factors: ${factors.map(factorLabel).join('; ')}`,
    );
  }
  for (const factor of chosen) {
    const gone = await admin.auth.admin.mfa.deleteFactor({ userId: user.id, id: factor.id });
    if (gone.error) throw new Error(`Removing factor ${factor.id} failed: ${gone.error.message}`);
  }
  // An admin's password change ends every session of the member (GoTrue's UpdatePassword without a session).
  const signedOut = await admin.auth.admin.updateUserById(user.id, { password: randomPassword() });
  if (signedOut.error) throw new Error(`Signing ${email} out failed: ${signedOut.error.message}`);
  return { user, removed: chosen };
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [email, factorId, ...rest] = argv;
  const url = env.SUPABASE_URL;
  const key = env.SUPABASE_SERVICE_ROLE_KEY || env.SUPABASE_SECRET_KEY;
  if (!email || rest.length > 0) {
    console.error('Usage: node scripts/remove-factor.ts <email> [factor-id]');
    return 1;
  }
  if (!url || !key) {
    console.error('Set SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY (or SUPABASE_SECRET_KEY) of the project.');
    return 1;
  }
  const admin = createClient(url, key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  });
  try {
    const { user, removed } = await removeFactor(admin, email, factorId);
    for (const f of removed) console.log(`removed factor ${factorLabel(f)}`);
    console.log(`signed ${user.email} out of every session; their password is now a random one`);
    console.log('Tell the member: choose a new password with "Forgot password?", then set up two-factor again.');
    return 0;
  } catch (err) {
    console.error(err instanceof OperatorError ? err.message : `Failed: ${(err as Error).message}`);
    return 1;
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2), process.env);
