// `client:visible-yield`: Astro's client:visible, plus one yield to the browser between loading an island's code
// and hydrating it. With client:visible, evaluating React's DOM runtime and starting the hydration run in one
// task, about 75 ms under Lighthouse's 4x CPU throttle; split, each part stays under the 50 ms of a long task.
// Registered in astro.config.mjs; the news islands use it.
import type { ClientDirective } from 'astro';

/** Resolves in a new task, so the browser can paint and answer input in between. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const visibleYield: ClientDirective = (load, _options, el) => {
  const io = new IntersectionObserver((entries) => {
    if (!entries.some((entry) => entry.isIntersecting)) return;
    io.disconnect();
    void (async () => {
      const hydrate = await load();
      await nextTask();
      await hydrate();
    })();
  });
  for (const child of el.children) io.observe(child);
};

export default visibleYield;
