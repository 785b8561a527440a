// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FunctionForm, type HoneypotAnswer } from '../../src/components/forms/function-form.ts';
import { $toasts } from '../../src/stores/toasts.ts';

// The base of the newsletter card and the contact form: a filled honeypot is answered without a request
// (the success a person sees, or "Please try again later"), a second submit while one runs does nothing.

class SuccessForm extends FunctionForm {
  protected readonly honeypotAnswer: HoneypotAnswer = 'success';
  protected async send(data: FormData) {
    const answer = await this.call('newsletter-signup', {
      email: String(data.get('email')),
      consentVersion: '0123456789abcdef',
    });
    if (answer.ok) this.succeeded();
    else this.failed();
  }
}
class TryLaterForm extends SuccessForm {
  protected readonly honeypotAnswer: HoneypotAnswer = 'try-later';
}
customElements.define('success-form', SuccessForm);
customElements.define('try-later-form', TryLaterForm);

function mount(tag: string) {
  // Built detached and then attached, so the element connects with its form inside (as on a page).
  const host = document.createElement('div');
  host.innerHTML = `
    <${tag} data-success-title="Thanks" data-success-description="Done." data-failure-title="Error"
      data-failure-description="It failed." data-honeypot-message="Please try again later">
      <form>
        <input name="email" data-field id="email" />
        <input name="website" />
        <button type="submit" data-idle-label="Send" data-busy-label="Sending..."><span data-label>Send</span></button>
      </form>
    </${tag}>`;
  document.body.replaceChildren(host);
  const form = host.querySelector('form') as HTMLFormElement;
  // Typed in, not the default: a reset empties it.
  (form.elements.namedItem('email') as HTMLInputElement).value = 'a@example.com';
  const submit = () => form.dispatchEvent(new Event('submit', { cancelable: true }));
  return { form, submit };
}

const fetchMock = vi.fn();
beforeEach(() => {
  $toasts.set([]);
  fetchMock.mockReset();
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

describe('FunctionForm', () => {
  it('a filled honeypot on a "success" form: the success toast, the form emptied, nothing sent', async () => {
    const { form, submit } = mount('success-form');
    (form.elements.namedItem('website') as HTMLInputElement).value = 'http://spam.example';
    submit();
    await vi.waitFor(() => expect($toasts.get()).toHaveLength(1));
    expect($toasts.get()[0]).toMatchObject({ title: 'Thanks', description: 'Done.', variant: 'default' });
    expect((form.elements.namedItem('email') as HTMLInputElement).value).toBe('');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('a filled honeypot on a "try-later" form: "Please try again later" as an error, nothing sent', async () => {
    const { form, submit } = mount('try-later-form');
    (form.elements.namedItem('website') as HTMLInputElement).value = 'http://spam.example';
    submit();
    await vi.waitFor(() => expect($toasts.get()).toHaveLength(1));
    expect($toasts.get()[0]).toMatchObject({
      title: 'Error',
      description: 'Please try again later',
      variant: 'destructive',
    });
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('sends once while busy, then answers with the function', async () => {
    let answer: (res: Response) => void = () => {};
    fetchMock.mockReturnValue(new Promise<Response>((done) => (answer = done)));
    const { form, submit } = mount('success-form');
    submit();
    submit();
    const button = form.querySelector('button') as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    expect(button.textContent).toBe('Sending...');
    answer(new Response('{}', { status: 200 }));
    await vi.waitFor(() => expect($toasts.get()).toHaveLength(1));
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(button.disabled).toBe(false);
    expect(button.textContent).toBe('Send');
  });

  it('a failed call: the failure toast, the fields kept', async () => {
    fetchMock.mockResolvedValue(new Response('{}', { status: 500 }));
    const { form, submit } = mount('success-form');
    submit();
    await vi.waitFor(() => expect($toasts.get()).toHaveLength(1));
    expect($toasts.get()[0]).toMatchObject({ title: 'Error', description: 'It failed.', variant: 'destructive' });
    expect((form.elements.namedItem('email') as HTMLInputElement).value).toBe('a@example.com');
  });
});
