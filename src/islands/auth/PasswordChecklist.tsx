import { PASSWORD_RULES, passwordChecks } from '../../../supabase/functions/_shared/password.ts';
import type { PasswordChecklistLabels } from './labels.ts';

interface Props {
  id: string;
  password: string;
  labels: PasswordChecklistLabels;
}

/** The live 'Password must contain:' list; point the password field's aria-describedby at `id`. */
export default function PasswordChecklist({ id, password, labels }: Props) {
  const checks = passwordChecks(password);
  return (
    <div id={id} className="mt-2 rounded-lg border border-navy-700 bg-navy-900 p-3 text-sm">
      <p className="font-medium text-white">{labels.heading}</p>
      <ul className="mt-2 space-y-1">
        {PASSWORD_RULES.map((rule) => (
          <li key={rule} className={checks[rule] ? 'flex gap-2 text-accent' : 'flex gap-2 text-muted'}>
            <span aria-hidden="true">{checks[rule] ? '✓' : '○'}</span>
            <span>
              {labels[rule]}
              <span className="sr-only">: {checks[rule] ? labels.met : labels.notMet}</span>
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
