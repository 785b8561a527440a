import { forwardRef } from 'react';
import Field from '../../components/ui/Field.tsx';

interface Props {
  /** The input's id; the hint and the error take `<id>-hint` and `<id>-error`. */
  id: string;
  label: string;
  hint: string;
  /** Said under the field as an alert, and tied to it (aria-invalid, aria-describedby). */
  error: string | null | undefined;
  value: string;
  onChange: (value: string) => void;
}

/**
 * The six-digit code field of /auth's code steps and of two-factor setup: one-time-code autofill, a numeric
 * keyboard, room for a pasted code with spaces or dashes (the caller cleans it), hint and error announced.
 */
const OneTimeCodeField = forwardRef<HTMLInputElement, Props>(function OneTimeCodeField(
  { error, onChange, ...field },
  ref,
) {
  return (
    <Field
      {...field}
      ref={ref}
      error={error ?? ''}
      inputClassName="font-mono tracking-[0.3em]"
      type="text"
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={12}
      required
      onChange={(e) => onChange(e.target.value)}
    />
  );
});

export default OneTimeCodeField;
