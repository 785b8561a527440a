import { forwardRef, type SubmitEvent } from 'react';
import Button from '../../components/ui/Button.tsx';
import Field from '../../components/ui/Field.tsx';
import { useCaptcha } from '../auth/use-captcha.ts';

interface Props {
  /** The form's id: the heading takes `<id>-heading`, the password field `<id>-password`. */
  id: string;
  heading: string;
  text: string;
  label: string;
  submit: string;
  /** The submit button's text while the check runs. */
  busyText: string;
  cancel: string;
  busy: boolean;
  /** Said under the field as an alert ('' while all is well). */
  error: string;
  value: string;
  onChange: (value: string) => void;
  /** `captchaToken` gives the form's CAPTCHA token for the password sign-in (undefined without a site key). */
  onSubmit: (event: SubmitEvent<HTMLFormElement>, captchaToken: () => Promise<string | undefined>) => void;
  onCancel: () => void;
}

/**
 * A step of two-factor settings that asks for the member's current password before it goes on. A ref reaches the
 * password field (forwardRef, as Field).
 */
const PasswordConfirmForm = forwardRef<HTMLInputElement, Props>(function PasswordConfirmForm(props, ref) {
  const { id, busy } = props;
  // The auth service asks a password sign-in for a CAPTCHA token while [auth.captcha] is on.
  const captcha = useCaptcha(id);
  return (
    <form
      ref={captcha.formRef}
      onSubmit={(event) => props.onSubmit(event, captcha.token)}
      aria-labelledby={`${id}-heading`}
      className="grid gap-4"
    >
      <h4 id={`${id}-heading`} className="font-semibold">
        {props.heading}
      </h4>
      <p className="text-muted">{props.text}</p>
      <Field
        ref={ref}
        id={`${id}-password`}
        label={props.label}
        type="password"
        autoComplete="current-password"
        required
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        error={props.error}
        disabled={busy}
      />
      {captcha.slot}
      <div className="flex flex-wrap gap-3">
        <Button type="submit" disabled={busy || !props.value}>
          {busy ? props.busyText : props.submit}
        </Button>
        <Button variant="outline" onClick={props.onCancel} disabled={busy}>
          {props.cancel}
        </Button>
      </div>
    </form>
  );
});

export default PasswordConfirmForm;
