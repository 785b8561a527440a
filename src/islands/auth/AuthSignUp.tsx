import { type FormEvent, useState } from 'react';
import { LIMITS } from '../../../supabase/functions/_shared/form-rules.ts';
import { PASSWORD_MAX_LENGTH, passwordMeetsRules } from '../../../supabase/functions/_shared/password.ts';
import Button from '../../components/ui/Button.tsx';
import Field from '../../components/ui/Field.tsx';
import { type SignUpFields, signUpFailure, signUpProblem } from '../../lib/auth-forms.ts';
import { bodyWithCaptcha } from '../../lib/captcha.ts';
import { invokeFunction } from '../../lib/functions.ts';
import { toast } from '../../stores/toasts.ts';
import { problemToast } from './auth-toast.ts';
import type { AuthLabels, PasswordChecklistLabels } from './labels.ts';
import PasswordChecklist from './PasswordChecklist.tsx';
import { useCaptcha } from './use-captcha.ts';

interface Props {
  labels: AuthLabels;
  passwordLabels: PasswordChecklistLabels;
  /** The account was created and its confirmation mail sent to `email`; the code sets `password` again. */
  onSignedUp(email: string, password: string): void;
}

const empty: SignUpFields = { firstName: '', lastName: '', email: '', password: '', website: '' };

/** Sign up: the user-signup function creates the account and the auth service mails the confirmation. */
export default function AuthSignUp({ labels, passwordLabels, onSignedUp }: Props) {
  const [fields, setFields] = useState<SignUpFields>(empty);
  const [showRules, setShowRules] = useState(false);
  const [busy, setBusy] = useState(false);
  // user-signup checks the token itself before anything changes.
  const captcha = useCaptcha('sign-up');
  const set = (key: keyof SignUpFields) => (e: { target: { value: string } }) =>
    setFields((f) => ({ ...f, [key]: e.target.value }));

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const problem = signUpProblem(fields);
    if (problem) {
      problemToast(labels, problem);
      return;
    }
    setBusy(true);
    try {
      const answer = await invokeFunction(
        'user-signup',
        bodyWithCaptcha(
          {
            email: fields.email.trim(),
            password: fields.password,
            firstName: fields.firstName.trim(),
            lastName: fields.lastName.trim(),
          },
          await captcha.token(),
        ),
      );
      if (!answer.ok) {
        // A 4xx/5xx answer carries the function's code and text; no answer at all is unexpected.
        if (answer.error.status) problemToast(labels, signUpFailure(answer.error));
        else problemToast(labels, { title: 'unexpectedTitle', description: 'unexpectedDescription' });
        return;
      }
      const message = (answer.data as { message?: unknown } | null)?.message;
      toast({
        title: labels.signUpSuccessTitle,
        description: typeof message === 'string' && message ? message : labels.signUpSuccessDescription,
      });
      setFields(empty);
      onSignedUp(fields.email.trim(), fields.password);
    } catch (err) {
      console.error('Sign up failed:', err);
      problemToast(labels, { title: 'unexpectedTitle', description: 'unexpectedDescription' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form ref={captcha.formRef} onSubmit={onSubmit} className="space-y-4">
      <div className="grid gap-4 sm:grid-cols-2">
        <Field
          id="signup-first-name"
          label={labels.firstName}
          autoComplete="given-name"
          maxLength={LIMITS.name}
          value={fields.firstName}
          onChange={set('firstName')}
        />
        <Field
          id="signup-last-name"
          label={labels.lastName}
          autoComplete="family-name"
          maxLength={LIMITS.name}
          value={fields.lastName}
          onChange={set('lastName')}
        />
      </div>
      <Field
        id="signup-email"
        label={labels.email}
        type="email"
        autoComplete="email"
        required
        maxLength={LIMITS.email}
        value={fields.email}
        onChange={set('email')}
      />
      <div>
        <Field
          id="signup-password"
          label={labels.password}
          type="password"
          autoComplete="new-password"
          required
          maxLength={PASSWORD_MAX_LENGTH}
          aria-describedby={showRules ? 'signup-password-rules' : undefined}
          value={fields.password}
          onChange={set('password')}
          onFocus={() => setShowRules(true)}
          onBlur={() => setShowRules(false)}
        />
        {/* The space stays reserved, so buttons below do not move while a click blurs the field. */}
        <div className={showRules ? undefined : 'invisible'}>
          <PasswordChecklist id="signup-password-rules" password={fields.password} labels={passwordLabels} />
        </div>
      </div>
      {/* Honeypot: hidden from people and screen readers; robots fill it. */}
      <div aria-hidden="true" className="absolute -left-[9999px] h-px w-px overflow-hidden">
        <label htmlFor="signup-website">{labels.website}</label>
        <input
          id="signup-website"
          name="website"
          type="text"
          tabIndex={-1}
          autoComplete="off"
          value={fields.website}
          onChange={set('website')}
        />
      </div>
      {captcha.slot}
      <Button type="submit" className="w-full" disabled={busy || !passwordMeetsRules(fields.password)}>
        {busy ? labels.creating : labels.signUp}
      </Button>
      <p className="text-sm text-muted">
        {labels.privacyNote}{' '}
        <a href="/privacy" className="text-accent underline">
          {labels.privacyLink}
        </a>
      </p>
    </form>
  );
}
