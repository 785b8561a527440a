// <auth-view> (AuthArea.astro): shows the one of its three auth states that $auth holds, and signs out.
import { $auth, loadStoredAuth } from '../../stores/auth.ts';
import type { SignOutTexts } from '../../stores/sign-out.ts';

// Sign Out, and the refresh of an expired session, load their code and supabase-js only when needed
// (src/stores/sign-out.ts).
const lazy = () => import('../../stores/sign-out.ts');

class AuthView extends HTMLElement {
  unbind?: () => void;

  connectedCallback() {
    this.unbind = $auth.subscribe(({ status, email }) => {
      for (const el of this.querySelectorAll<HTMLElement>('[data-auth-state]')) {
        el.hidden = el.dataset.authState !== status;
      }
      for (const el of this.querySelectorAll<HTMLElement>('[data-auth-email]')) {
        el.textContent = email ?? '';
        el.parentElement?.setAttribute('title', email ?? '');
      }
    });
    for (const button of this.querySelectorAll<HTMLButtonElement>('[data-sign-out]')) {
      button.addEventListener('click', async () => {
        button.disabled = true;
        const { signOut } = await lazy();
        // The four data-* texts above are required labels (content/site/navigation.md), always rendered.
        const done = await signOut(this.dataset as DOMStringMap & SignOutTexts);
        if (!done) button.disabled = false;
      });
    }
  }

  disconnectedCallback() {
    this.unbind?.();
  }
}

customElements.define('auth-view', AuthView);
// A page's first read of storage is a round trip to the browser process: it runs in a task of its own, after this
// module's, so neither is a long task on a slow phone. The header shows its placeholder until then.
setTimeout(() => loadStoredAuth(() => lazy().then((m) => m.client())), 0);
