import { useStore } from '@nanostores/preact';
import { type ReactNode, type SubmitEvent, useEffect, useRef, useState } from 'react';
import Button from '../../components/ui/Button.tsx';
import { browserTwoFactorDeps, type CaptchaToken, createTwoFactorFlow } from '../../stores/two-factor-flow.ts';
import OneTimeCodeField from '../auth/OneTimeCodeField.tsx';
import type { SettingsLabels } from './labels.ts';
import PasswordConfirmForm from './PasswordConfirmForm.tsx';
import TwoFactorEnrolForm from './TwoFactorEnrolForm.tsx';

interface Props {
  /** The signed-in member's address: the current password is checked by signing in with it. */
  email: string;
  labels: SettingsLabels;
}

/**
 * Two-factor authentication (TOTP). Set up asks for the current password (a fresh sign-in), then enrolls an
 * authenticator-app factor (auth.mfa.enroll), shows its QR code and key, and turns it on once the first code
 * checks (challengeAndVerify, which also raises the session to aal2). A verified factor is listed with
 * Remove, which asks for the current password before unenroll: the auth service needs aal2 only, and a
 * member who lost the phone still knows the password (a code would lock them out). The steps are
 * src/stores/two-factor-flow.ts; this renders them and moves the focus.
 */
export default function SettingsTwoFactor({ email, labels }: Props) {
  const [flow] = useState(() => createTwoFactorFlow(browserTwoFactorDeps(email), labels));
  const { factors, step, password, code, error, busy, copied } = useStore(flow.$state);
  const fieldRef = useRef<HTMLInputElement>(null);
  const setupRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    flow.load();
  }, [flow]);

  // The field is the next thing to fill once a step's form appears.
  useEffect(() => {
    if (step.kind !== 'idle') fieldRef.current?.focus();
  }, [step]);

  // A field with a message gets the focus back, once the form is no longer busy (a disabled input cannot).
  useEffect(() => {
    if (error && !busy) fieldRef.current?.focus();
  }, [error, busy]);

  /** Focus goes where the closed form was: Set up, once it has rendered. */
  const focusSetup = () => setTimeout(() => setupRef.current?.focus(), 0);

  async function onPassword(event: SubmitEvent<HTMLFormElement>, captchaToken: CaptchaToken) {
    event.preventDefault();
    await flow.submitSetup(captchaToken);
  }

  async function onRemove(event: SubmitEvent<HTMLFormElement>, captchaToken: CaptchaToken) {
    event.preventDefault();
    if (await flow.submitRemove(captchaToken)) focusSetup();
  }

  function onConfirm(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    flow.confirmCode();
  }

  function cancel() {
    if (flow.cancel()) focusSetup();
  }

  const passwordForm = (id: string, heading: string, text: string, submit: string, busyText: string) => (
    <PasswordConfirmForm
      ref={fieldRef}
      id={id}
      heading={heading}
      text={text}
      label={labels.twoFactorPassword}
      submit={submit}
      busyText={busyText}
      cancel={labels.cancel}
      busy={busy}
      error={error}
      value={password}
      onChange={flow.setPassword}
      onSubmit={step.kind === 'remove' ? onRemove : onPassword}
      onCancel={cancel}
    />
  );

  let body: ReactNode;
  if (factors === null) {
    body = (
      <p role="status" className="text-muted">
        {labels.twoFactorLoading}
      </p>
    );
  } else if (factors.length > 0) {
    body = (
      <>
        <p className="text-muted">{labels.twoFactorOn}</p>
        <ul aria-label={labels.twoFactorListLabel} className="grid gap-3">
          {factors.map((f) => (
            <li
              key={f.id}
              className="flex flex-wrap items-center justify-between gap-3 rounded-xl border border-navy-700 p-4"
            >
              <span className="font-medium">{f.friendly_name || labels.twoFactorApp}</span>
              {!(step.kind === 'remove' && step.factor.id === f.id) && (
                <Button variant="outline" onClick={() => flow.startRemove(f)} disabled={busy}>
                  {labels.twoFactorRemove}
                </Button>
              )}
            </li>
          ))}
        </ul>
        {step.kind === 'remove' &&
          passwordForm(
            'two-factor-remove',
            labels.twoFactorRemoveHeading,
            labels.twoFactorRemoveText,
            labels.twoFactorRemoveConfirm,
            labels.twoFactorRemoving,
          )}
      </>
    );
  } else if (step.kind === 'password') {
    body = passwordForm(
      'two-factor-password',
      labels.twoFactorSetup,
      labels.twoFactorPasswordText,
      labels.twoFactorContinue,
      labels.twoFactorStarting,
    );
  } else if (step.kind === 'code') {
    body = (
      <TwoFactorEnrolForm
        labels={labels}
        qrCode={step.qrCode}
        secret={step.secret}
        copied={copied}
        onCopy={flow.copySecret}
        busy={busy}
        codeField={
          <OneTimeCodeField
            ref={fieldRef}
            id="two-factor-code"
            label={labels.twoFactorCode}
            hint={labels.twoFactorHint}
            error={error}
            value={code}
            onChange={flow.setCode}
          />
        }
        onSubmit={onConfirm}
        onCancel={cancel}
      />
    );
  } else {
    body = (
      <>
        <p className="text-muted">{labels.twoFactorText}</p>
        <div>
          <Button ref={setupRef} onClick={flow.startSetup}>
            {labels.twoFactorSetup}
          </Button>
        </div>
      </>
    );
  }

  return (
    <section aria-labelledby="two-factor" className="grid content-start gap-4">
      <h3 id="two-factor" className="text-xl font-semibold">
        {labels.twoFactorHeading}
      </h3>
      {body}
    </section>
  );
}
