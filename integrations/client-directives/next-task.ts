// The site's two client directives, client:load-yield and client:visible-yield (registered by index.ts), are
// Astro's own client:load and client:visible with one yield to the browser between loading an island's code and
// hydrating it: evaluating the island's modules and starting the hydration run as two tasks rather than one long
// task (figures: docs/performance.md).
import type { ClientDirective } from 'astro';

type DirectiveLoad = Parameters<ClientDirective>[0];

/** `load`, whose hydration first gives the browser a task of its own to paint and answer input. */
export function yieldBeforeHydrate(load: DirectiveLoad): DirectiveLoad {
  return async () => {
    const hydrate = await load();
    return async () => {
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
      await hydrate();
    };
  };
}
