// The site's two client directives, client:load-yield and client:visible-yield (registered in astro.config.mjs),
// are Astro's client:load and client:visible plus one yield to the browser between loading an island's code and
// hydrating it. With Astro's own, evaluating React's DOM runtime and starting the hydration run in one task, about
// 75 ms under Lighthouse's 4x CPU throttle; split, each part stays under the 50 ms of a long task.
import type { ClientDirective } from 'astro';

type DirectiveLoad = Parameters<ClientDirective>[0];

/** Loads the island's code, gives the browser a task of its own to paint and answer input, then hydrates. */
export async function loadThenHydrate(load: DirectiveLoad): Promise<void> {
  const hydrate = await load();
  await new Promise<void>((resolve) => setTimeout(resolve, 0));
  await hydrate();
}
