// Turns a Problem from src/lib/auth-forms.ts into a toast with the page's labels.
import type { Problem } from '../../lib/auth-forms.ts';
import { type ToastInput, toast } from '../../stores/toasts.ts';
import type { AuthLabels } from './labels.ts';

export function problemToast(labels: AuthLabels, problem: Problem, variant: ToastInput['variant'] = 'destructive') {
  const description = problem.text ?? (problem.description ? labels[problem.description] : undefined);
  return toast({ title: labels[problem.title], description, variant });
}
