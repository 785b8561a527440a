import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { corsHeaders } from '../../../supabase/functions/_shared/cors.ts';
import { ERROR_CODES, functionErrorOf, isErrorCode } from '../../../supabase/functions/_shared/errors.ts';
import { errorResponse } from '../../../supabase/functions/_shared/http.ts';

// Every error answer of the functions is `{ error, code, field? }`: the sentence people read, and the stable
// code the site decides on.

describe('errorResponse', () => {
  test('the sentence, the code and the status, with CORS', async () => {
    const res = errorResponse(409, 'account_exists', 'A user with this email address has already been registered.');
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toBe('application/json');
    for (const [k, v] of Object.entries(corsHeaders)) expect(res.headers.get(k)).toBe(v);
    expect(await res.json()).toEqual({
      error: 'A user with this email address has already been registered.',
      code: 'account_exists',
    });
  });

  test('invalid_input names the field; headers are added', async () => {
    const res = errorResponse(400, 'invalid_input', 'Email is required.', {
      field: 'email',
      headers: { 'Retry-After': '5' },
    });
    expect(await res.json()).toEqual({ error: 'Email is required.', code: 'invalid_input', field: 'email' });
    expect(res.headers.get('retry-after')).toBe('5');
  });

  test('an empty field is left out', async () => {
    const res = errorResponse(400, 'bad_json', 'Request body must be a JSON object.', { field: '' });
    expect(await res.json()).toEqual({ error: 'Request body must be a JSON object.', code: 'bad_json' });
  });
});

describe('functionErrorOf: a refusal as the site reads it', () => {
  test.each<[unknown, ReturnType<typeof functionErrorOf>]>([
    [
      { error: 'Email is required.', code: 'invalid_input', field: 'email' },
      { status: 400, message: 'Email is required.', code: 'invalid_input', field: 'email' },
    ],
    // GoTrue-style `message`, and a code the functions do not answer with: the sentence only.
    [
      { message: ' Too many requests ', code: 'over_request_rate_limit' },
      { status: 400, message: 'Too many requests' },
    ],
    [
      { error: '', code: 'rate_limited', field: 7 },
      { status: 400, code: 'rate_limited' },
    ],
    [null, { status: 400 }],
    ['text', { status: 400 }],
  ])('%j', (body, expected) => {
    expect(functionErrorOf(400, body)).toEqual(expected);
  });

  test('isErrorCode knows exactly the listed codes', () => {
    for (const code of ERROR_CODES) expect(isErrorCode(code)).toBe(true);
    for (const other of ['', 'Account_exists', 'email_exists', 'toString', undefined, 409]) {
      expect(isErrorCode(other)).toBe(false);
    }
  });
});

describe('the codes are one list', () => {
  const functionsDir = join(import.meta.dirname, '../../../supabase/functions');
  const sources = readdirSync(functionsDir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.startsWith('_shared/errors.ts'))
    .map((f) => ({ file: f, text: readFileSync(join(functionsDir, f), 'utf8') }));

  test('every code is answered by some function, and docs/functions.md lists each one', () => {
    const all = sources.map((s) => s.text).join('\n');
    const unused = ERROR_CODES.filter((code) => !all.includes(`'${code}'`));
    expect(unused).toEqual([]);
    const docs = readFileSync(join(import.meta.dirname, '../../../docs/functions.md'), 'utf8');
    const section = docs.slice(docs.indexOf('## Error answers'), docs.indexOf('## The forms'));
    const documented = [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
    expect(documented).toEqual([...ERROR_CODES]);
  });

  test('no function builds an error body by hand: each goes through errorResponse', () => {
    const byHand = sources.filter((s) => /json\(\s*\{\s*error\b/.test(s.text)).map((s) => s.file);
    expect(byHand).toEqual([]);
  });
});
