// Auth mail comes from the templates config.toml names ([auth.email.template.*] subject + content_path,
// relative to the project root), the files hosted Supabase gets too: the project's own, and a project
// with templates of its own to show every supported Go-template variable reaching the mail; and the
// security notifications ([auth.email.notification.*], content_path relative to the supabase folder).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadMailTemplates, loadNotifications } from '../../src/auth/templates.ts';
import { readProjectToml } from '../../src/project.ts';
import { GOOD_PASSWORD, uniqueEmail } from '../../testing/auth-helpers.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

const REDIRECT = 'http://127.0.0.1:4321/newsletter-verified?type=user';

describe("the project's templates", () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack();
  });
  afterAll(() => t?.stop());

  test('the confirmation mail has the subject of config.toml and the body of supabase/templates', async () => {
    const email = uniqueEmail('tpl');
    const { error } = await t
      .anon()
      .auth.signUp({ email, password: GOOD_PASSWORD, options: { emailRedirectTo: REDIRECT } });
    expect(error).toBeNull();
    const mail = await t.mail.waitFor(email);
    const toml = readProjectToml(resolve('supabase'));
    const configured = (toml.auth as { email: { template: Record<string, { subject: string }> } }).email.template;
    expect(mail.Subject).toBe(configured.confirmation.subject);

    // The HTML is the file with its variables filled in: put the placeholders back and compare. The link's
    // token is {{ .TokenHash }}; the file may use {{ .ConfirmationURL }} or build its link from the hash.
    const file = readFileSync(resolve('supabase/templates/confirmation.html'), 'utf8');
    const hash = /token(?:_hash)?=([0-9a-f]{56})/.exec(mail.HTML)?.[1] ?? '';
    expect(hash).toMatch(/^[0-9a-f]{56}$/);
    const link = new RegExp(`${t.url}/auth/v1/verify\\?token=${hash}&amp;type=signup&amp;redirect_to=[^"<]+`).exec(
      mail.HTML,
    )?.[0];
    const code = /<strong>(\d{6})<\/strong>/.exec(mail.HTML)?.[1] ?? '';
    expect(code).toMatch(/^\d{6}$/);
    let html = link ? mail.HTML.replaceAll(link, '{{ .ConfirmationURL }}') : mail.HTML;
    html = html
      .replaceAll(hash, '{{ .TokenHash }}')
      .replaceAll(t.config.siteUrl, '{{ .SiteURL }}')
      .replaceAll(email, '{{ .Email }}')
      .replace(`<strong>${code}</strong>`, '<strong>{{ .Token }}</strong>');
    expect(html.trim()).toBe(file.trim());

    // The plain-text part comes from the .txt beside it.
    const text = readFileSync(resolve('supabase/templates/confirmation.txt'), 'utf8')
      .replaceAll('{{ .Email }}', email)
      .replaceAll('{{ .ConfirmationURL }}', link?.replaceAll('&amp;', '&') ?? '')
      .replaceAll('{{ .TokenHash }}', hash)
      .replaceAll('{{ .SiteURL }}', t.config.siteUrl)
      .replaceAll('{{ .Token }}', code);
    expect(mail.Text.trim()).toBe(text.trim());
  });
});

describe('a project with templates of its own', () => {
  let root: string;
  let t: TestStack;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'signals-templates-'));
    const supabaseDir = join(root, 'supabase');
    mkdirSync(join(supabaseDir, 'emails'), { recursive: true });
    symlinkSync(resolve('supabase/migrations'), join(supabaseDir, 'migrations'));
    symlinkSync(resolve('supabase/templates'), join(supabaseDir, 'templates'));
    const toml = readFileSync(resolve('supabase/config.toml'), 'utf8').replace(
      /\[auth\.email\.template\.recovery\][^[]*/,
      '[auth.email.template.recovery]\nsubject = "Reset for {{ .Data.first_name }}"\ncontent_path = "./supabase/emails/reset.html"\n\n',
    );
    writeFileSync(join(supabaseDir, 'config.toml'), toml);
    writeFileSync(
      join(supabaseDir, 'emails', 'reset.html'),
      [
        '<p>Hello {{ .Data.first_name }} {{- .Data.missing }},</p>',
        '<p>Site {{ .SiteURL }}, back to {{ .RedirectTo }}</p>',
        '<p>Hash {{.TokenHash}} code {{ .Token }} for {{ .Email }}</p>',
        '<p><a href="{{ .ConfirmationURL }}">Reset</a></p>',
      ].join('\n'),
    );
    t = await startTestStack({ supabaseDir });
  });
  afterAll(async () => {
    await t?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  test('every supported variable is filled; without a .txt the text part is the HTML without tags', async () => {
    const email = uniqueEmail('own');
    await t.admin().auth.admin.createUser({
      email,
      password: GOOD_PASSWORD,
      email_confirm: true,
      user_metadata: { first_name: 'Ada <3' },
    });
    const { error } = await t.anon().auth.resetPasswordForEmail(email, { redirectTo: 'http://127.0.0.1:4321/auth' });
    expect(error).toBeNull();
    const mail = await t.mail.waitFor(email);
    expect(mail.Subject).toBe('Reset for Ada <3');
    const link = /href="([^"]+)"/.exec(mail.HTML)?.[1].replaceAll('&amp;', '&') ?? '';
    const hash = new URL(link).searchParams.get('token') ?? '';
    expect(hash).toMatch(/^[0-9a-f]{56}$/);
    expect(mail.HTML).toContain('<p>Hello Ada &lt;3,</p>');
    expect(mail.HTML).toContain('<p>Site http://127.0.0.1:4321, back to http://127.0.0.1:4321/auth</p>');
    expect(mail.HTML).toMatch(new RegExp(`<p>Hash ${hash} code \\d{6} for ${email.replace(/[.]/g, '\\.')}</p>`));
    expect(mail.Text).toContain('Hello Ada <3,');
    expect(mail.Text).toContain(`Reset (${link})`);
    expect(mail.Text).not.toContain('<p>');
  });

  test('a template using an action the stack cannot fill stops the start, naming the file', () => {
    writeFileSync(join(root, 'supabase', 'emails', 'reset.html'), '{{ if .Email }}Hi{{ end }}');
    expect(() => loadMailTemplates(join(root, 'supabase'), readProjectToml(join(root, 'supabase')))).toThrow(
      './supabase/emails/reset.html: "{{ if .Email }}" is not supported by the local stack',
    );
  });
});

describe('security notifications ([auth.email.notification.*])', () => {
  let root: string;
  const project = (notifications: string) => {
    root = mkdtempSync(join(tmpdir(), 'signals-notifications-'));
    const supabaseDir = join(root, 'supabase');
    mkdirSync(join(supabaseDir, 'notes'), { recursive: true });
    const toml = readFileSync(resolve('supabase/config.toml'), 'utf8').replace(
      /\[auth\.email\.notification\.mfa_factor_enrolled\][^[]*\[auth\.email\.notification\.mfa_factor_unenrolled\][^[]*/,
      `${notifications}\n\n`,
    );
    expect(toml).toContain(notifications);
    writeFileSync(join(supabaseDir, 'config.toml'), toml);
    return supabaseDir;
  };
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test("content_path is relative to the supabase folder; off by default, with GoTrue's defaults", () => {
    const dir = project(
      '[auth.email.notification.mfa_factor_enrolled]\nenabled = true\nsubject = "Added for {{ .Email }}"\ncontent_path = "./notes/added.html"',
    );
    writeFileSync(
      join(dir, 'notes', 'added.html'),
      '<p>{{ .FactorType }} for {{ .Data.first_name }} at {{ .SiteURL }}</p>',
    );
    const loaded = loadNotifications(dir, readProjectToml(dir));
    expect(loaded.mfa_factor_enrolled).toMatchObject({
      enabled: true,
      template: { subject: 'Added for {{ .Email }}', source: './notes/added.html' },
    });
    expect(loaded.mfa_factor_unenrolled).toMatchObject({
      enabled: false,
      template: { subject: 'A verification method was removed from your account' },
    });
  });

  test('a variable a notification lacks, a missing file, or a notification the stack does not send stops the start', () => {
    const dir = project(
      '[auth.email.notification.mfa_factor_enrolled]\nenabled = true\ncontent_path = "./notes/added.html"',
    );
    writeFileSync(join(dir, 'notes', 'added.html'), '<a href="{{ .ConfirmationURL }}">x</a>');
    expect(() => loadNotifications(dir, readProjectToml(dir))).toThrow(
      './notes/added.html: "{{ .ConfirmationURL }}" is not supported by the local stack (it fills {{ .SiteURL }}, {{ .Email }}, {{ .FactorType }}, {{ .Data.<key> }})',
    );
    rmSync(join(dir, 'notes', 'added.html'));
    expect(() => loadNotifications(dir, readProjectToml(dir))).toThrow(
      'config.toml [auth.email.notification.mfa_factor_enrolled] content_path: ./notes/added.html does not exist (it is relative to the supabase folder)',
    );
    const other = project('[auth.email.notification.password_changed]\nenabled = true');
    expect(() => loadNotifications(other, readProjectToml(other))).toThrow(
      'config.toml [auth.email.notification.password_changed] is enabled, but the local stack sends only mfa_factor_enrolled and mfa_factor_unenrolled notifications',
    );
  });
});
