// Turns a Problem from src/lib/auth-forms.ts into a toast with the page's labels.
import type { AuthLabels, Problem } from '../../lib/auth-forms.ts';
import { type ToastInput, toast } from '../../stores/toasts.ts';

export function problemToast(labels: AuthLabels, problem: Problem, variant: ToastInput['variant'] = 'destructive') {
  const description = problem.text ?? (problem.description ? labels[problem.description] : undefined);
  return toast({ title: labels[problem.title], description, variant });
}

/** The text a failed function call answered ({error} or {message}), when it has one. */
export async function functionErrorText(error: unknown): Promise<string | undefined> {
  const context = (error as { context?: unknown } | null)?.context;
  if (!(context instanceof Response)) return undefined;
  try {
    const body = (await context.clone().json()) as { error?: unknown; message?: unknown };
    const text = typeof body.error === 'string' ? body.error : body.message;
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}
