// @vitest-environment happy-dom
// The islands run on Preact's compatibility layer, where a ref reaches a function component only through forwardRef:
// a `ref` in a component's own props would type-check and be lost. Each component that hands a ref on is checked
// by what the ref holds once rendered.
import { cleanup, render } from '@testing-library/preact';
import { createRef } from 'react';
import { afterEach, expect, test } from 'vitest';
import Button from '../../src/components/ui/Button.tsx';
import Field from '../../src/components/ui/Field.tsx';
import OneTimeCodeField from '../../src/islands/auth/OneTimeCodeField.tsx';
import PasswordConfirmForm from '../../src/islands/settings/PasswordConfirmForm.tsx';

afterEach(cleanup);

const none = () => {};

test('a ref given to Field, OneTimeCodeField or PasswordConfirmForm holds the input', () => {
  const field = createRef<HTMLInputElement>();
  const code = createRef<HTMLInputElement>();
  const password = createRef<HTMLInputElement>();
  const { container } = render(
    <div>
      <Field ref={field} id="name" label="Name" />
      <OneTimeCodeField ref={code} id="code" label="Code" hint="Six digits" error="" value="" onChange={none} />
      <PasswordConfirmForm
        ref={password}
        id="confirm"
        heading="Confirm"
        text="Your password first."
        label="Your password"
        submit="Continue"
        busyText="Checking..."
        cancel="Cancel"
        busy={false}
        error=""
        value=""
        onChange={none}
        onSubmit={none}
        onCancel={none}
      />
    </div>,
  );
  expect(field.current).toBe(container.querySelector('#name'));
  expect(code.current).toBe(container.querySelector('#code'));
  expect(password.current).toBe(container.querySelector('#confirm-password'));
});

test('a ref given to Button holds the button, or the link when it has an href', () => {
  const button = createRef<HTMLButtonElement>();
  const link = createRef<HTMLAnchorElement>();
  render(
    <div>
      <Button ref={button}>Set up</Button>
      <Button ref={link} href="/quiz">
        Quiz
      </Button>
    </div>,
  );
  expect(button.current?.tagName).toBe('BUTTON');
  expect(button.current?.textContent).toBe('Set up');
  expect(link.current?.tagName).toBe('A');
  expect(link.current?.getAttribute('href')).toBe('/quiz');
});
