// The admin API behind a service_role token (GoTrue admin.go and adminGenerateLink in mail.go).
import type { Context, Hono } from 'hono';
import type { Queryable } from '../../db/index.ts';
import { badRequest, notFound, unprocessable } from '../errors.ts';
import { encodeValues, GoUrl } from '../go-url.ts';
import { requireAdmin } from '../guard.ts';
import { confirmUser } from '../links.ts';
import { actionLink, type VerifyType } from '../mail.ts';
import { generateOtp, storeOneTimeToken, tokenHash } from '../otp.ts';
import { checkPasswordStrength, hashPassword, MAX_PASSWORD_LENGTH } from '../passwords.ts';
import { type AuthContext, type Body, bool, handle, json, obj, readBody, referrer, str } from '../request.ts';
import {
  createUser,
  findUserByEmail,
  findUserById,
  isUuid,
  mergeMetadata,
  normalizeUserRow,
  USER_COLUMNS,
  type UserRow,
  userJson,
  validateEmail,
} from '../users.ts';
import { generatedPassword } from './account.ts';

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

export function adminRoutes(app: Hono, ctx: AuthContext) {
  const { settings } = ctx;
  const admin = (fn: (c: Context) => Promise<Response>) =>
    handle(async (c) => {
      await requireAdmin(c, ctx);
      return fn(c);
    });

  app.get(
    '/admin/users',
    admin(async (c) => {
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
      const where = `u.aud = 'authenticated'${filter ? ` and (u.email ilike $3 or u.raw_user_meta_data->>'full_name' ilike $3)` : ''}`;
      const params: unknown[] = [perPage, Math.max(page - 1, 0) * perPage];
      if (filter) params.push(`%${filter.replace(/[\\%_]/g, '\\$&')}%`);
      const rows = await ctx.db.query<UserRow>(
        `select ${USER_COLUMNS} from auth.users u where ${where} order by u.created_at desc, u.id limit $1 offset $2`,
        params,
      );
      const countRows = await ctx.db.query<{ n: number }>(
        `select count(*)::int as n from auth.users u where ${where.replace(/\$3/g, '$1')}`,
        filter ? [params[2]] : [],
      );
      const total = Number(countRows[0]?.n ?? 0);
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
      const res = json({ users: rows.map((u) => userJson(normalizeUserRow(u))), aud: 'authenticated' });
      res.headers.set('Link', link);
      res.headers.set('X-Total-Count', String(total));
      return res;
    }),
  );

  app.post(
    '/admin/users',
    admin(async (c) => {
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
      if (id === '00000000-0000-0000-0000-000000000000')
        throw badRequest('validation_failed', 'ID cannot be a nil uuid');
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
          appMetadata: appMetadata
            ? mergeMetadata({ provider: 'email', providers: ['email'] }, appMetadata)
            : undefined,
          role,
          confirmedAt: emailConfirm ? new Date() : null,
        });
        if (bannedUntil) {
          await tx.query('update auth.users set banned_until = $2 where id = $1', [created.id, bannedUntil]);
        }
        return (await findUserById(tx, created.id)) as UserRow;
      });
      return json(userJson(user));
    }),
  );

  app.get(
    '/admin/users/:id',
    admin(async (c) => json(userJson(await loadUser(c, ctx)))),
  );

  app.put(
    '/admin/users/:id',
    admin(async (c) => {
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
        if (role)
          await tx.query('update auth.users set role = $2, updated_at = $3 where id = $1', [user.id, role, now]);
        if (emailConfirm) await confirmUser(tx, user);
        if (encrypted) {
          await tx.query('update auth.users set encrypted_password = $2, updated_at = $3 where id = $1', [
            user.id,
            encrypted,
            now,
          ]);
          await tx.query('delete from auth.sessions where user_id = $1', [user.id]);
        }
        if (email !== '' && email !== user.email) {
          await tx.query('update auth.users set email = $2, updated_at = $3 where id = $1', [user.id, email, now]);
          await tx.query(
            `update auth.identities set identity_data = identity_data || jsonb_build_object('email', $2::text, 'email_verified', $3::boolean),
                    updated_at = $4 where user_id = $1 and provider = 'email'`,
            [user.id, email, emailConfirm, now],
          );
        }
        if (appMetadata) {
          await tx.query('update auth.users set raw_app_meta_data = $2::jsonb, updated_at = $3 where id = $1', [
            user.id,
            JSON.stringify(mergeMetadata(user.raw_app_meta_data, appMetadata)),
            now,
          ]);
        }
        if (userMetadata) {
          await tx.query('update auth.users set raw_user_meta_data = $2::jsonb, updated_at = $3 where id = $1', [
            user.id,
            JSON.stringify(mergeMetadata(user.raw_user_meta_data, userMetadata)),
            now,
          ]);
        }
        if (bannedUntil !== undefined) {
          await tx.query('update auth.users set banned_until = $2 where id = $1', [user.id, bannedUntil]);
        }
        return (await findUserById(tx, user.id)) as UserRow;
      });
      return json(userJson(updated));
    }),
  );

  app.delete(
    '/admin/users/:id',
    admin(async (c) => {
      const user = await loadUser(c, ctx);
      const body = await readBody(c, { optional: true });
      if (bool(body, 'should_soft_delete')) {
        if (!user.deleted_at) {
          // SoftDeleteUser: the row stays, its addresses and metadata are emptied and its sessions end.
          await ctx.db.transaction(async (tx) => {
            const now = new Date().toISOString();
            await tx.query(
              `update auth.users set deleted_at = $2, email = null, phone = null, encrypted_password = '',
                      confirmation_token = '', recovery_token = '', raw_user_meta_data = '{}'::jsonb,
                      raw_app_meta_data = '{}'::jsonb, updated_at = $2 where id = $1`,
              [user.id, now],
            );
            await tx.query(`update auth.identities set identity_data = '{}'::jsonb where user_id = $1`, [user.id]);
            await tx.query('delete from auth.sessions where user_id = $1', [user.id]);
            await tx.query('delete from auth.one_time_tokens where user_id = $1', [user.id]);
          });
        }
      } else {
        await ctx.db.query('delete from auth.users where id = $1', [user.id]);
      }
      return json({});
    }),
  );

  app.post(
    '/admin/generate_link',
    admin(async (c) => {
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
            await tx.query('update auth.users set raw_user_meta_data = $2::jsonb where id = $1', [
              target.id,
              JSON.stringify(mergeMetadata(target.raw_user_meta_data, data)),
            ]);
          }
          if (type === 'invite')
            await tx.query('update auth.users set invited_at = $2 where id = $1', [target.id, now]);
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
    }),
  );
}
