import type { Ref } from 'react';

interface Props {
  /** The input's id; the hint and the error take `<id>-hint` and `<id>-error`. */
  id: string;
  label: string;
  hint: string;
  /** Said under the field as an alert, and tied to it (aria-invalid, aria-describedby). */
  error: string | null | undefined;
  value: string;
  onChange: (value: string) => void;
  ref?: Ref<HTMLInputElement>;
  /** The form's own input and label styles (the auth forms and Settings differ). */
  inputClass: string;
  labelClass?: string;
}

/**
 * The six-digit code field of /auth's code steps and of two-factor setup: one-time-code autofill, a numeric
 * keyboard, room for a pasted code with spaces or dashes (the caller cleans it), hint and error announced.
 */
export default function OneTimeCodeField({
  id,
  label,
  hint,
  error,
  value,
  onChange,
  ref,
  inputClass,
  labelClass = 'block text-sm font-medium text-white',
}: Props) {
  return (
    <div>
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      <p id={`${id}-hint`} className="text-sm text-muted">
        {hint}
      </p>
      <input
        ref={ref}
        id={id}
        className={`${inputClass} font-mono tracking-[0.3em]`}
        type="text"
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={12}
        required
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-hint ${id}-error`}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
      <p id={`${id}-error`} role="alert" className="mt-1 min-h-5 text-sm font-medium text-danger">
        {error}
      </p>
    </div>
  );
}
