import { forwardRef, type InputHTMLAttributes, type ReactNode } from 'react';

interface Props extends Omit<InputHTMLAttributes<HTMLInputElement>, 'className'> {
  /** The input's id; the hint and the error line take `<id>-hint` and `<id>-error`. */
  id: string;
  label: string;
  /** Said between the label and the input, and tied to the input (aria-describedby). */
  hint?: string;
  /**
   * The error line under the input: there whenever the prop is given ('' while all is well, so the space
   * stays and the next message is announced), an alert; a message makes the input aria-invalid.
   */
  error?: string | null;
  /** The wrapper's classes (grid placement, margins). */
  className?: string;
  /** Classes added to the input's own. */
  inputClassName?: string;
  /** What follows the field (a password checklist, a message of the caller's own). */
  children?: ReactNode;
}

// One look for every island input, as the static forms' fields: a dark well with a visible border.
const inputClass =
  'mt-1 block min-h-12 w-full rounded-lg border border-navy-600 bg-navy-950 px-3 text-white placeholder:text-subtle focus:border-accent aria-invalid:border-danger disabled:opacity-70 read-only:bg-navy-800';

/**
 * A labelled input of the islands' forms, with its hint and error line. A ref reaches the input: forwardRef, since
 * Preact's compatibility layer passes `ref` to a function component only through it.
 */
const Field = forwardRef<HTMLInputElement, Props>(function Field(
  { id, label, hint, error, className, inputClassName, children, ...input },
  ref,
) {
  const describedBy = [hint && `${id}-hint`, error && `${id}-error`, input['aria-describedby']].filter(Boolean);
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-sm font-medium text-white">
        {label}
      </label>
      {hint && (
        <p id={`${id}-hint`} className="text-sm text-muted">
          {hint}
        </p>
      )}
      <input
        {...input}
        ref={ref}
        id={id}
        className={inputClassName ? `${inputClass} ${inputClassName}` : inputClass}
        aria-invalid={error ? true : input['aria-invalid']}
        aria-describedby={describedBy.length ? describedBy.join(' ') : undefined}
      />
      {error !== undefined && (
        <p id={`${id}-error`} role="alert" className="mt-1 min-h-5 text-sm font-medium text-danger">
          {error}
        </p>
      )}
      {children}
    </div>
  );
});

export default Field;
