// The site's two client directives, client:load-yield and client:visible-yield (registered in astro.config.mjs),
// are Astro's own client:load and client:visible with one yield to the browser between loading an island's code
// and hydrating it. With Astro's alone, evaluating React's DOM runtime and starting the hydration run in one task,
// about 75 ms under Lighthouse's 4x CPU throttle; split, each part stays under the 50 ms of a long task.
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
