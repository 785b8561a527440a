// Which way the functions send mail: Resend's HTTP API when its key is set, else SMTP_URL, with smtp:// on
// ports 25 and 587 refused on hosted Edge Functions (they cannot connect there).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { COMPANY_FOOTER } from '../../../supabase/functions/_shared/company-footer.ts';
import { envFrom } from '../../../supabase/functions/_shared/env.ts';
import {
  chooseTransport,
  createTransportMailer,
  MailConfigError,
  mailerFromEnv,
  RESEND_API_URL,
  runsOnHostedEdge,
  withCompanyFooter,
} from '../../../supabase/functions/_shared/mail.ts';

const HOSTED = { DENO_DEPLOYMENT_ID: 'abcdefghijklmnop_fn_12', SB_REGION: 'eu-west-2' };

describe('chooseTransport', () => {
  test.each([
    ['the local catcher', { SMTP_URL: 'smtp://127.0.0.1:54325' }, { port: 54325, secure: false }],
    ['smtps:// without a port (465)', { SMTP_URL: 'smtps://u:p@smtp.example.com' }, { port: 465, secure: true }],
    [
      'smtps:// on 465, hosted',
      { ...HOSTED, SMTP_URL: 'smtps://u:p@smtp.example.com:465' },
      { port: 465, secure: true },
    ],
    [
      'smtps:// on another port, hosted',
      { ...HOSTED, SMTP_URL: 'smtps://smtp.example.com:2465' },
      { port: 2465, secure: true },
    ],
    ['smtp:// on 465 means implicit TLS', { SMTP_URL: 'smtp://smtp.example.com:465' }, { port: 465, secure: true }],
    ['smtp:// on 2525, hosted', { ...HOSTED, SMTP_URL: 'smtp://smtp.example.com:2525' }, { port: 2525, secure: false }],
    ['smtp:// on 587 off the hosted runtime', { SMTP_URL: 'smtp://relay.internal:587' }, { port: 587, secure: false }],
  ])('%s: SMTP', (_label, env, expected) => {
    expect(chooseTransport(envFrom(env))).toMatchObject({ kind: 'smtp', ...expected });
  });

  test('RESEND_API_KEY wins over SMTP_URL, on hosted Edge Functions too', () => {
    expect(chooseTransport(envFrom({ ...HOSTED, RESEND_API_KEY: ' re_123 ', SMTP_URL: 'smtp://x:587' }))).toEqual({
      kind: 'resend',
      apiKey: 're_123',
      apiUrl: RESEND_API_URL,
    });
    expect(RESEND_API_URL).toBe('https://api.resend.com/emails');
  });

  test.each([
    ['port 587', { DENO_DEPLOYMENT_ID: 'x' }, 'smtp://u:p@smtp.example.com:587', /port 587/],
    ['port 25', { SB_REGION: 'us-east-1' }, 'smtp://smtp.example.com:25', /port 25/],
    ['no port (587)', HOSTED, 'smtp://smtp.example.com', /port 587/],
  ])('smtp:// on %s on hosted Edge Functions is refused with a clear error', (_label, hosted, url, port) => {
    const choose = () => chooseTransport(envFrom({ ...hosted, SMTP_URL: url }));
    expect(choose).toThrow(MailConfigError);
    expect(choose).toThrow(port);
    expect(choose).toThrow(/cannot connect.*smtps:\/\/user:pass@host:465.*RESEND_API_KEY/s);
  });

  test.each([
    [{}, /No mail transport: set RESEND_API_KEY, or SMTP_URL/],
    [{ SMTP_URL: '  ' }, /No mail transport/],
    [{ SMTP_URL: 'not a url' }, /SMTP_URL is not a URL/],
    [{ SMTP_URL: 'https://mail.example.com' }, /must start with smtps:\/\/ or smtp:\/\/, not https:/],
  ])('%j: refused, saying what to set', (env, message) => {
    expect(() => chooseTransport(envFrom(env))).toThrow(message);
  });

  test.each([
    [{}, false],
    [{ DENO_DEPLOYMENT_ID: 'x' }, true],
    [{ SB_REGION: 'eu-west-2' }, true],
  ])('runsOnHostedEdge(%j) is %s', (env, hosted) => {
    expect(runsOnHostedEdge(envFrom(env))).toBe(hosted);
  });
});

describe('mailerFromEnv', () => {
  test('a wrong setting fails the send (so a caller that stored first keeps the message), not the start', async () => {
    const mailer = mailerFromEnv(envFrom({ ...HOSTED, SMTP_URL: 'smtp://smtp.example.com:587', MAIL_FROM: 'a@b.co' }));
    await expect(mailer.send({ to: 'x@example.com', subject: 's', text: 't' })).rejects.toThrow(/port 587/);
  });

  test('MAIL_FROM is required', async () => {
    const mailer = mailerFromEnv(envFrom({ SMTP_URL: 'smtp://127.0.0.1:1' }));
    await expect(mailer.send({ to: 'x@example.com', subject: 's', text: 't' })).rejects.toThrow(/MAIL_FROM/);
  });
});

describe('Resend transport', () => {
  interface Seen {
    method?: string;
    url?: string;
    headers: IncomingMessage['headers'];
    body: unknown;
  }
  const seen: Seen[] = [];
  let status = 200;
  let apiUrl = '';
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: JSON.parse(raw) });
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(status === 200 ? '{"id":"4ef9a417"}' : '{"name":"validation_error","message":"Invalid `from` field."}');
    });
  });
  beforeAll(async () => {
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/emails`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  test('POST /emails with the key as a bearer token and the mail as JSON', async () => {
    status = 200;
    const mailer = createTransportMailer(
      { kind: 'resend', apiKey: 're_test_key', apiUrl },
      'SignalOne <no-reply@signals.example>',
    );
    await mailer.send({
      to: 'support@signals.example',
      subject: 'Question',
      text: 'Hello',
      html: '<p>Hello</p>',
      replyTo: { name: 'Ann "the trader" Lee', address: 'ann@example.com' },
    });
    expect(seen.at(-1)).toMatchObject({
      method: 'POST',
      url: '/emails',
      headers: { authorization: 'Bearer re_test_key', 'content-type': 'application/json' },
      body: {
        from: 'SignalOne <no-reply@signals.example>',
        to: ['support@signals.example'],
        subject: 'Question',
        // Every mail closes with the company's details (withCompanyFooter, below).
        text: `Hello\n\n-- \n${COMPANY_FOOTER.join('\n')}\n`,
        html: expect.stringMatching(/^<p>Hello<\/p>\n<p style="[^"]*">.*company number.*<\/p>$/),
        reply_to: '"Ann the trader Lee" <ann@example.com>',
      },
    });
  });

  test('extra headers (List-Unsubscribe) go in the JSON body as `headers`', async () => {
    status = 200;
    const mailer = createTransportMailer({ kind: 'resend', apiKey: 'k', apiUrl }, 'a@b.co');
    const headers = {
      'List-Unsubscribe': '<https://abc.supabase.co/functions/v1/newsletter-signup/unsubscribe?id=1&token=2>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    };
    await mailer.send({ to: 'x@example.com', subject: 's', text: 't', headers });
    expect((seen.at(-1)?.body as { headers?: unknown } | undefined)?.headers).toEqual(headers);
  });

  test('an error answer fails the send with the status and the API message', async () => {
    status = 422;
    const mailer = createTransportMailer({ kind: 'resend', apiKey: 'k', apiUrl }, 'a@b.co');
    await expect(mailer.send({ to: 'x@example.com', subject: 's', text: 't' })).rejects.toThrow(
      /Mail API answered 422: .*Invalid `from` field/,
    );
  });
});

describe("the company's details in every mail", () => {
  test('a plain-text mail gets them after the signature delimiter', () => {
    expect(withCompanyFooter({ to: 'a@b.co', subject: 's', text: 'Hi\n\n' }, ['One Ltd', 'Contact: x']).text).toBe(
      'Hi\n\n-- \nOne Ltd\nContact: x\n',
    );
  });

  test('an HTML mail gets them before </body>, escaped; without <body>, at the end', () => {
    const lines = ['A & B <Ltd>'];
    const page = withCompanyFooter({ to: 'a', subject: 's', text: 't', html: '<body><p>Hi</p></body>' }, lines);
    expect(page.html).toMatch(/^<body><p>Hi<\/p><p style="[^"]*">A &#38; B &#60;Ltd&#62;<\/p><\/body>$/);
    const bare = withCompanyFooter({ to: 'a', subject: 's', text: 't', html: '<p>Hi</p>' }, lines);
    expect(bare.html?.startsWith('<p>Hi</p>\n<p style=')).toBe(true);
  });

  test('the lines are the generated ones, from content/company/company.md', () => {
    expect(withCompanyFooter({ to: 'a', subject: 's', text: 't' }).text).toContain(COMPANY_FOOTER[0]);
  });
});
