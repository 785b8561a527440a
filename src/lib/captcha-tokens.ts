// How the CAPTCHA widget's single-use tokens reach the form that sends them, without DOM or network. Loaded with
// the widget (src/components/captcha/turnstile-widget.ts), not with the page.

/**
 * Hands the widget's tokens to whoever sends the form. A token is good for one check only: `take` gives the
 * current one and forgets it (the widget is then reset for the next). Waiting callers get the next token, or
 * undefined once the widget reports a failure (the request then goes without one, and the server says why).
 */
export interface TokenSlot {
  /** A token arrived from the widget. */
  put(token: string): void;
  /** The widget's token expired before it was used. */
  expire(): void;
  /** The widget failed (script blocked, network, challenge timed out): waiting callers go on without a token. */
  fail(): void;
  /** The current token, or the next one the widget gives; undefined after a failure. */
  take(): Promise<string | undefined>;
}

export function createTokenSlot(): TokenSlot {
  let current: string | undefined;
  let waiting: ((token: string | undefined) => void)[] = [];
  const settle = (token: string | undefined) => {
    const callers = waiting;
    waiting = [];
    for (const resolve of callers) resolve(token);
  };
  return {
    put(token) {
      if (waiting.length > 0) {
        // A caller was waiting for it: it is theirs, and used.
        const [first, ...rest] = waiting;
        waiting = rest;
        first?.(token);
        return;
      }
      current = token;
    },
    expire() {
      current = undefined;
    },
    fail() {
      current = undefined;
      settle(undefined);
    },
    take() {
      if (current !== undefined) {
        const token = current;
        current = undefined;
        return Promise.resolve(token);
      }
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
}
