import type { Ref, SubmitEvent } from 'react';
import Button from '../../components/ui/Button.tsx';
import Field from '../../components/ui/Field.tsx';

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
  onSubmit: (event: SubmitEvent<HTMLFormElement>) => void;
  onCancel: () => void;
  ref?: Ref<HTMLInputElement>;
}

/** A step of two-factor settings that asks for the member's current password before it goes on. */
export default function PasswordConfirmForm(props: Props) {
  const { id, busy } = props;
  return (
    <form onSubmit={props.onSubmit} aria-labelledby={`${id}-heading`} className="grid gap-4">
      <h4 id={`${id}-heading`} className="font-semibold">
        {props.heading}
      </h4>
      <p className="text-muted">{props.text}</p>
      <Field
        ref={props.ref}
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
}
