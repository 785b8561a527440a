// <toast-region> (Toaster.astro): renders $toasts.
import { $toasts, dismiss, showQueuedToasts, type Toast } from '../../stores/toasts.ts';

const STYLES: Record<Toast['variant'], string[]> = {
  default: ['border-navy-600', 'bg-navy-800', 'text-white'],
  destructive: ['border-danger', 'bg-[#3b0d12]', 'text-white'],
};

class ToastRegion extends HTMLElement {
  #timers = new Map<number, ReturnType<typeof setTimeout>>();
  #unbind?: () => void;

  connectedCallback() {
    // This module is also imported by islands, whose code can run while the parser is still before this element:
    // the element is then connected before its list and the template after it exist. It starts once they do.
    if (document.readyState === 'loading') {
      document.addEventListener(
        'DOMContentLoaded',
        () => {
          if (this.isConnected) this.#start();
        },
        { once: true },
      );
    } else this.#start();
  }

  #start() {
    const list = this.querySelector<HTMLOListElement>('[data-toast-list]');
    const template = document.querySelector<HTMLTemplateElement>('#toast-template');
    if (!list || !template) return;
    this.#unbind = $toasts.subscribe((toasts) => this.#render(list, template, toasts));
    this.addEventListener('keydown', this.#onKeydown);
    document.addEventListener('keydown', this.#onHotkey);
    // In a task of its own, like the header's storage read (auth-view.ts).
    setTimeout(() => showQueuedToasts(), 0);
  }

  disconnectedCallback() {
    this.#unbind?.();
    document.removeEventListener('keydown', this.#onHotkey);
    for (const timer of this.#timers.values()) clearTimeout(timer);
  }

  #render(list: HTMLOListElement, template: HTMLTemplateElement, toasts: readonly Toast[]) {
    const ids = new Set(toasts.map((t) => String(t.id)));
    for (const el of list.querySelectorAll<HTMLLIElement>('li[data-toast-id]')) {
      if (!ids.has(el.dataset.toastId ?? '')) {
        const focused = el.contains(document.activeElement);
        el.remove();
        if (focused) list.querySelector<HTMLElement>('li:last-child')?.focus();
        this.#clearTimer(Number(el.dataset.toastId));
      }
    }
    for (const t of toasts) {
      if (list.querySelector(`li[data-toast-id="${t.id}"]`)) continue;
      const li = (template.content.firstElementChild as HTMLLIElement).cloneNode(true) as HTMLLIElement;
      li.dataset.toastId = String(t.id);
      li.dataset.variant = t.variant;
      (li.querySelector('[data-toast-text]') as HTMLElement).setAttribute(
        'role',
        t.variant === 'destructive' ? 'alert' : 'status',
      );
      li.classList.add(...STYLES[t.variant]);
      (li.querySelector('[data-toast-title]') as HTMLElement).textContent = t.title;
      const description = li.querySelector('[data-toast-description]') as HTMLElement;
      if (t.description) description.textContent = t.description;
      else description.remove();
      const close = li.querySelector('[data-toast-close]') as HTMLButtonElement;
      close.setAttribute('aria-label', this.dataset.dismissLabel ?? 'Dismiss');
      close.addEventListener('click', () => dismiss(t.id));
      list.append(li);
      this.#arm(li, t);
    }
  }

  // Auto-close pauses while the pointer or focus is on the toast, so it can be read and reached.
  #arm(li: HTMLLIElement, t: Toast) {
    if (t.duration <= 0) return;
    const start = () => {
      this.#clearTimer(t.id);
      this.#timers.set(
        t.id,
        setTimeout(() => dismiss(t.id), t.duration),
      );
    };
    const pause = () => this.#clearTimer(t.id);
    li.addEventListener('pointerenter', pause);
    li.addEventListener('pointerleave', start);
    li.addEventListener('focusin', pause);
    li.addEventListener('focusout', start);
    start();
  }

  #clearTimer(id: number) {
    clearTimeout(this.#timers.get(id));
    this.#timers.delete(id);
  }

  #onKeydown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape') return;
    const li = (event.target as Element).closest<HTMLLIElement>('li[data-toast-id]');
    if (!li) return;
    event.stopPropagation();
    dismiss(Number(li.dataset.toastId));
  };

  #onHotkey = (event: KeyboardEvent) => {
    if (event.key !== 'F8') return;
    const newest = this.querySelector<HTMLElement>('li[data-toast-id]:last-child');
    if (!newest) return;
    event.preventDefault();
    newest.focus();
  };
}

customElements.define('toast-region', ToastRegion);
