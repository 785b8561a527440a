import type { InputHTMLAttributes, Ref } from 'react';

interface Props extends InputHTMLAttributes<HTMLInputElement> {
  id: string;
  label: string;
  ref?: Ref<HTMLInputElement>;
}

export const inputClass =
  'mt-1 block min-h-12 w-full rounded-lg border border-navy-700 bg-navy-900 px-3 text-white placeholder:text-subtle focus:border-accent';

/** A labelled text input of the auth forms. */
export default function AuthField({ id, label, className, ref, ...input }: Props) {
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-sm font-medium text-white">
        {label}
      </label>
      <input ref={ref} id={id} className={inputClass} {...input} />
    </div>
  );
}
