// The admin API behind a service_role token (GoTrue admin.go and adminGenerateLink in mail.go).
import type { Context, Hono } from 'hono';
import type { Queryable } from '../../db/types.ts';
import { badRequest, notFound, unprocessable } from '../errors.ts';
import { encodeValues, GoUrl } from '../go-url.ts';
import { requireAdmin } from '../guard.ts';
import { actionLink, type VerifyType } from '../mail.ts';
import { deleteOneTimeTokens, storeOneTimeToken } from '../one-time-tokens.ts';
import { generateOtp, tokenHash } from '../otp.ts';
import { checkPasswordStrength, hashPassword, MAX_PASSWORD_LENGTH } from '../passwords.ts';
import { type AuthContext, type Body, bool, endpoints, json, obj, readBody, referrer, str } from '../request.ts';
import { endSessions } from '../sessions.ts';
import {
  banUser,
  changeUserEmail,
  confirmUser,
  createUser,
  deleteUser,
  findUserByEmail,
  findUserById,
  isUuid,
  listUsers,
  mergeMetadata,
  softDeleteUser,
  type UserRow,
  updateUserFields,
  userJson,
  validateEmail,
} from '../users.ts';
import { generatedPassword } from './account.ts';

export function adminRoutes(app: Hono, ctx: AuthContext) {
  const admin = endpoints(ctx, requireAdmin);
  app.get('/admin/users', admin(adminUsers));
  app.post('/admin/users', admin(adminUserCreate));
  app.put('/admin/users/:id', admin(adminUserUpdate));
  app.get('/admin/users/:id', admin(adminUserGet));
  app.delete('/admin/users/:id', admin(adminUserDelete));
  app.post('/admin/generate_link', admin(adminGenerateLink));
}

const DUPLICATE_EMAIL = 'A user with this email address has already been registered';

/** Go's time.ParseDuration for ban_duration, or "none" to lift a ban. */
function banUntil(value: string): string | null {
  if (value === 'none') return null;
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let rest = value;
  let ms = 0;
  while (rest) {
    const m = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/.exec(rest);
    if (!m) throw badRequest('validation_failed', `invalid format for ban duration: time: invalid duration "${value}"`);
    ms += Number(m[1]) * units[m[2]];
    rest = rest.slice(m[0].length);
  }
  return new Date(Date.now() + ms).toISOString();
}

async function loadUser(c: Context, ctx: AuthContext, tx: Queryable = ctx.db): Promise<UserRow> {
  const id = c.req.param('id') ?? '';
  if (!isUuid(id)) throw notFound('validation_failed', 'user_id must be an UUID');
  const user = await findUserById(tx, id);
  if (!user) throw notFound('user_not_found', 'User not found');
  return user;
}

async function passwordParams(body: Body): Promise<string | null> {
  const hasPassword = body.password !== undefined && body.password !== null;
  const password = hasPassword ? str(body, 'password') : '';
  const passwordHash = str(body, 'password_hash');
  if (hasPassword && passwordHash !== '') {
    throw badRequest('validation_failed', 'Only a password or a password hash should be provided');
  }
  if (passwordHash !== '') {
    if (!/^\$2[abxy]?\$\d\d\$[./A-Za-z0-9]{53}$/.test(passwordHash)) {
      throw badRequest('validation_failed', 'Invalid password hash format: only bcrypt hashes are supported');
    }
    return passwordHash;
  }
  if (password === '') return null;
  if (Buffer.byteLength(password) > MAX_PASSWORD_LENGTH) {
    throw badRequest('validation_failed', 'bcrypt: password length exceeds 72 bytes');
  }
  return hashPassword(password);
}

/** GET /admin/users. */
async function adminUsers(c: Context, ctx: AuthContext): Promise<Response> {
  const pageRaw = c.req.query('page') ?? '';
  const perPageRaw = c.req.query('per_page') ?? '';
  const parse = (raw: string, fallback: number) => {
    if (raw === '') return fallback;
    if (!/^\d+$/.test(raw)) {
      throw badRequest(
        'validation_failed',
        `Bad Pagination Parameters: strconv.ParseUint: parsing "${raw}": invalid syntax`,
      );
    }
    return Number(raw);
  };
  const page = parse(pageRaw, 1);
  const perPage = parse(perPageRaw, 50);
  if (perPage === 0)
    throw badRequest('validation_failed', 'Bad Pagination Parameters: per_page must be greater than 0');
  const filter = c.req.query('filter') ?? '';
  const { users, total } = await listUsers(ctx.db, {
    limit: perPage,
    offset: Math.max(page - 1, 0) * perPage,
    filter,
  });
  // addPaginationHeaders: next (when there is one) and last, on the request's own path and query.
  const totalPages = Math.ceil(total / perPage);
  const url = new GoUrl(`/admin/users?${new URL(c.req.url).search.slice(1)}`);
  let link = '';
  if (totalPages > page) {
    url.query.set('page', [String(page + 1)]);
    url.rawQuery = encodeValues(url.query);
    link += `<${url}>; rel="next", `;
  }
  url.query.set('page', [String(totalPages)]);
  url.rawQuery = encodeValues(url.query);
  link += `<${url}>; rel="last"`;
  const res = json({ users: users.map(userJson), aud: 'authenticated' });
  res.headers.set('Link', link);
  res.headers.set('X-Total-Count', String(total));
  return res;
}

/** POST /admin/users. */
async function adminUserCreate(c: Context, ctx: AuthContext): Promise<Response> {
  const body = await readBody(c);
  let email = str(body, 'email');
  const phone = str(body, 'phone');
  if (email === '' && phone === '') {
    throw badRequest('validation_failed', 'Cannot create a user without either an email or phone');
  }
  if (phone !== '') throw badRequest('phone_provider_disabled', 'Phone users are not supported by this server');
  email = validateEmail(email);
  if (await findUserByEmail(ctx.db, email)) throw unprocessable('email_exists', DUPLICATE_EMAIL);
  const id = str(body, 'id');
  if (id !== '' && !isUuid(id)) throw badRequest('validation_failed', 'ID must conform to the uuid v4 format');
  if (id === '00000000-0000-0000-0000-000000000000') throw badRequest('validation_failed', 'ID cannot be a nil uuid');
  const banDuration = str(body, 'ban_duration');
  const bannedUntil = banDuration ? banUntil(banDuration) : null;
  const encryptedPassword = (await passwordParams(body)) ?? (await hashPassword(generatedPassword()));
  const userMetadata = obj(body, 'user_metadata') ?? {};
  const appMetadata = obj(body, 'app_metadata');
  const emailConfirm = bool(body, 'email_confirm');
  const role = str(body, 'role') || 'authenticated';

  const user = await ctx.db.transaction(async (tx) => {
    const created = await createUser(tx, {
      id: id || undefined,
      email,
      encryptedPassword,
      userMetadata,
      appMetadata: appMetadata ? mergeMetadata({ provider: 'email', providers: ['email'] }, appMetadata) : undefined,
      role,
      confirmedAt: emailConfirm ? new Date() : null,
    });
    if (bannedUntil) await banUser(tx, created.id, bannedUntil);
    return (await findUserById(tx, created.id)) as UserRow;
  });
  return json(userJson(user));
}

/** GET /admin/users/:id. */
async function adminUserGet(c: Context, ctx: AuthContext): Promise<Response> {
  return json(userJson(await loadUser(c, ctx)));
}

/** PUT /admin/users/:id. */
async function adminUserUpdate(c: Context, ctx: AuthContext): Promise<Response> {
  const { settings } = ctx;
  const user = await loadUser(c, ctx);
  const body = await readBody(c);
  let email = str(body, 'email');
  if (email !== '') email = validateEmail(email);
  if (str(body, 'phone') !== '')
    throw badRequest('phone_provider_disabled', 'Phone users are not supported by this server');
  const banDuration = str(body, 'ban_duration');
  const bannedUntil = banDuration ? banUntil(banDuration) : undefined;
  let encrypted: string | null = null;
  if (body.password !== undefined && body.password !== null) {
    const password = str(body, 'password');
    checkPasswordStrength(settings, password);
    encrypted = await hashPassword(password);
  }
  const userMetadata = obj(body, 'user_metadata');
  const appMetadata = obj(body, 'app_metadata');
  const role = str(body, 'role');
  const emailConfirm = bool(body, 'email_confirm');
  if (email !== '' && email !== user.email) {
    const other = await findUserByEmail(ctx.db, email);
    if (other && other.id !== user.id) throw unprocessable('email_exists', DUPLICATE_EMAIL);
  }

  const updated = await ctx.db.transaction(async (tx) => {
    const now = new Date().toISOString();
    if (role) await updateUserFields(tx, user.id, { role, updatedAt: now });
    if (emailConfirm) await confirmUser(tx, user);
    if (encrypted) {
      await updateUserFields(tx, user.id, { encryptedPassword: encrypted, updatedAt: now });
      await endSessions(tx, user.id);
    }
    if (email !== '' && email !== user.email) await changeUserEmail(tx, user.id, email, emailConfirm, now);
    if (appMetadata) {
      const merged = mergeMetadata(user.raw_app_meta_data, appMetadata);
      await updateUserFields(tx, user.id, { appMetadata: merged, updatedAt: now });
    }
    if (userMetadata) {
      const merged = mergeMetadata(user.raw_user_meta_data, userMetadata);
      await updateUserFields(tx, user.id, { userMetadata: merged, updatedAt: now });
    }
    if (bannedUntil !== undefined) await banUser(tx, user.id, bannedUntil);
    return (await findUserById(tx, user.id)) as UserRow;
  });
  return json(userJson(updated));
}

/** DELETE /admin/users/:id. */
async function adminUserDelete(c: Context, ctx: AuthContext): Promise<Response> {
  const user = await loadUser(c, ctx);
  const body = await readBody(c, { optional: true });
  if (bool(body, 'should_soft_delete')) {
    if (!user.deleted_at) {
      // SoftDeleteUser: the row stays, its addresses and metadata are emptied and its sessions end.
      await ctx.db.transaction(async (tx) => {
        await softDeleteUser(tx, user.id, new Date().toISOString());
        await endSessions(tx, user.id);
        await deleteOneTimeTokens(tx, user.id);
      });
    }
  } else {
    await deleteUser(ctx.db, user.id);
  }
  return json({});
}

/** POST /admin/generate_link. */
async function adminGenerateLink(c: Context, ctx: AuthContext): Promise<Response> {
  const { settings } = ctx;
  const body = await readBody(c);
  let type = str(body, 'type');
  const email = validateEmail(str(body, 'email'));
  let password = str(body, 'password');
  const data = obj(body, 'data') ?? {};
  const asked = str(body, 'redirect_to');
  const redirectTo = ctx.allow.isValid(asked) ? asked : referrer(c, ctx);

  let user = await findUserByEmail(ctx.db, email);
  let generated = false;
  if (!user) {
    if (type === 'magiclink') {
      type = 'signup';
      password = generatedPassword();
      generated = true;
    } else if (type === 'recovery' || type === 'email_change_current' || type === 'email_change_new') {
      throw notFound('user_not_found', 'User with this email not found');
    }
  }
  if (!['signup', 'magiclink', 'recovery', 'invite'].includes(type)) {
    throw badRequest('validation_failed', `Invalid email action link type requested: ${type}`);
  }
  let encryptedPassword: string | null = null;
  if (type === 'signup' && !user) {
    if (password === '') throw badRequest('validation_failed', 'Signup requires a valid password');
    // A generated password is random, not chosen: the policy is for people's passwords.
    if (!generated) checkPasswordStrength(settings, password);
    encryptedPassword = await hashPassword(password);
  }

  const otp = generateOtp(settings.otpLength);
  const hashed = tokenHash(email, otp);
  const now = new Date().toISOString();
  user = await ctx.db.transaction(async (tx) => {
    let target = user;
    if (type === 'signup' || type === 'invite') {
      if (target?.email_confirmed_at) throw unprocessable('email_exists', DUPLICATE_EMAIL);
      if (!target) {
        target = await createUser(tx, {
          email,
          encryptedPassword: encryptedPassword ?? '',
          userMetadata: data,
        });
      } else if (type === 'signup' && Object.keys(data).length) {
        const userMetadata = mergeMetadata(target.raw_user_meta_data, data);
        await updateUserFields(tx, target.id, { userMetadata });
      }
      if (type === 'invite') await updateUserFields(tx, target.id, { invitedAt: now });
      await storeOneTimeToken(tx, target.id, email, 'confirmation_token', hashed, now);
    } else {
      await storeOneTimeToken(tx, (target as UserRow).id, email, 'recovery_token', hashed, now);
    }
    return (await findUserById(tx, (target as UserRow).id)) as UserRow;
  });

  return json({
    ...userJson(user),
    action_link: actionLink(settings, hashed, type as VerifyType, redirectTo),
    email_otp: otp,
    hashed_token: hashed,
    verification_type: type,
    redirect_to: redirectTo,
  });
}
