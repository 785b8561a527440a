// A stand-in for Cloudflare Turnstile's siteverify on 127.0.0.1, for the tests: the functions
// (TURNSTILE_VERIFY_URL) and the local stack's auth service are pointed at it. It answers as siteverify does
// (developers.cloudflare.com/turnstile/get-started/server-side-validation): a form or JSON POST of secret,
// response and remoteip, answered { success, "error-codes" }. Tokens are the ones `issue()` handed out, each
// good once; a second use is "timeout-or-duplicate", an unknown one "invalid-input-response", a wrong secret
// "invalid-input-secret". POST /down makes it answer 500 until POST /up (Cloudflare unreachable).
//
// By hand: `node scripts/lib/captcha-verifier.ts [port]` prints its URL and the secret; POST /issue gives a token.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';

export interface VerifierCall {
  /** The token the caller sent (`response`), if any. */
  token: string | undefined;
  remoteip: string | undefined;
  success: boolean;
  codes: string[];
}

export interface CaptchaVerifierServer {
  /** The siteverify address to give TURNSTILE_VERIFY_URL. */
  url: string;
  /** The secret it accepts (TURNSTILE_SECRET_KEY of the functions, [auth.captcha] secret of the stack). */
  secret: string;
  /** A token it will accept once, as the widget gives one to a visitor. */
  issue(): string;
  /** Every siteverify call so far, oldest first. */
  readonly calls: VerifierCall[];
  close(): Promise<void>;
}

export interface CaptchaVerifierOptions {
  port?: number;
  secret?: string;
}

async function readBody(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if ((req.headers['content-type'] ?? '').includes('application/json')) {
    try {
      const value = JSON.parse(text) as Record<string, unknown>;
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

export function startCaptchaVerifier(options: CaptchaVerifierOptions = {}): Promise<CaptchaVerifierServer> {
  const secret = options.secret ?? `test-secret-${randomBytes(8).toString('hex')}`;
  const fresh = new Set<string>();
  const spent = new Set<string>();
  const calls: VerifierCall[] = [];
  let down = false;
  const issue = () => {
    const token = `test-token-${randomBytes(12).toString('hex')}`;
    fresh.add(token);
    return token;
  };

  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const reply = (status: number, body: unknown) =>
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    if (req.method !== 'POST') return reply(405, { success: false, 'error-codes': ['bad-request'] });
    if (path === '/down' || path === '/up') {
      down = path === '/down';
      return res.writeHead(204).end();
    }
    if (path === '/issue') return reply(200, { token: issue() });
    if (path !== '/siteverify') return reply(404, { success: false, 'error-codes': ['bad-request'] });
    const form = await readBody(req);
    if (down) return res.writeHead(500, { 'Content-Type': 'text/plain' }).end('siteverify is down');
    const token = form.response || undefined;
    const codes: string[] = [];
    if (!form.secret) codes.push('missing-input-secret');
    else if (form.secret !== secret) codes.push('invalid-input-secret');
    if (!token) codes.push('missing-input-response');
    else if (spent.has(token)) codes.push('timeout-or-duplicate');
    else if (!fresh.has(token)) codes.push('invalid-input-response');
    const success = codes.length === 0;
    if (token && success) {
      fresh.delete(token);
      spent.add(token);
    }
    calls.push({ token, remoteip: form.remoteip || undefined, success, codes });
    reply(200, success ? { success, 'error-codes': [], hostname: 'localhost' } : { success, 'error-codes': codes });
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({
        url: `http://127.0.0.1:${port}/siteverify`,
        secret,
        issue,
        calls,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

if (import.meta.main) {
  const verifier = await startCaptchaVerifier({ port: Number(process.argv[2] ?? 0) });
  console.log(`siteverify stand-in: ${verifier.url}\nsecret: ${verifier.secret}`);
}
