// What the site's two small forms (newsletter card, contact form) share in the browser: field errors and the
// busy button. They call their functions with invokeFunction (src/lib/functions.ts: plain fetch with the public
// key, no supabase-js on these pages).

type Field = HTMLInputElement | HTMLTextAreaElement;

/** The field's error line: `<p id="<field id>-error">`, referenced from aria-describedby while shown. */
function errorLine(field: Field): HTMLElement | null {
  return document.getElementById(`${field.id}-error`);
}

export function setFieldError(field: Field, message: string | undefined): void {
  const line = errorLine(field);
  if (!line) return;
  const described = (field.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id && id !== line.id);
  if (message) {
    line.textContent = message;
    line.hidden = false;
    field.setAttribute('aria-invalid', 'true');
    described.push(line.id);
  } else {
    line.textContent = '';
    line.hidden = true;
    field.removeAttribute('aria-invalid');
  }
  if (described.length) field.setAttribute('aria-describedby', described.join(' '));
  else field.removeAttribute('aria-describedby');
}

/** Shows each field's message (or clears it) and focuses the first field in error; true when there was one. */
export function showFieldErrors(form: HTMLFormElement, errors: Partial<Record<string, string>>): boolean {
  let first: Field | undefined;
  for (const field of form.querySelectorAll<Field>('[data-field]')) {
    const message = errors[field.name];
    setFieldError(field, message);
    if (message && !first) first = field;
  }
  first?.focus();
  return first !== undefined;
}

/** A field's error goes away as soon as the person edits it. */
export function clearErrorsOnInput(form: HTMLFormElement): void {
  form.addEventListener('input', (event) => {
    const field = event.target as Field;
    if (field.matches('[data-field][aria-invalid]')) setFieldError(field, undefined);
  });
}

/** The submit button while a request runs: disabled, with its busy label ('Subscribing...', 'Sending...'). */
export function setBusy(form: HTMLFormElement, busy: boolean): void {
  const button = form.querySelector<HTMLButtonElement>('button[type=submit]');
  if (!button) return;
  button.disabled = busy;
  const label = button.querySelector<HTMLElement>('[data-label]') ?? button;
  label.textContent = (busy ? button.dataset.busyLabel : button.dataset.idleLabel) ?? label.textContent;
  form.setAttribute('aria-busy', String(busy));
}
