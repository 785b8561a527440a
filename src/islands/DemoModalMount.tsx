// Loaded only when Watch Demo is pressed (or hovered / focused, as a prefetch): Preact and the demo come with
// it, never with the page.
import { createRoot, type Root } from 'react-dom/client';
import type { DemoCopy } from '../content/schemas.ts';
import DemoModal from './DemoModal.tsx';

let root: Root | undefined;
let openings = 0;

/** Opens the demo dialog; when it closes, focus goes back to `trigger`. Reopening starts a fresh session. */
export function openDemo(trigger: HTMLElement): void {
  const copy = JSON.parse(document.getElementById('demo-copy')?.textContent ?? 'null') as DemoCopy | null;
  if (!copy) throw new Error('The demo copy (#demo-copy) is missing from the page');
  if (!root) {
    const host = document.createElement('div');
    host.dataset.island = 'demo';
    document.body.append(host);
    root = createRoot(host);
  }
  openings += 1;
  const onClose = () => {
    root?.render(null);
    trigger.focus();
  };
  const seed = Math.floor(Math.random() * 2 ** 32);
  root.render(<DemoModal key={openings} copy={copy} seed={seed} onClose={onClose} />);
}
