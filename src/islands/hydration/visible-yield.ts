// `client:visible-yield`: client:visible, hydrating in a task of its own (see next-task.ts). The news islands.
import type { ClientDirective } from 'astro';
import { loadThenHydrate } from './next-task.ts';

const visibleYield: ClientDirective = (load, _options, el) => {
  const io = new IntersectionObserver((entries) => {
    if (!entries.some((entry) => entry.isIntersecting)) return;
    io.disconnect();
    void loadThenHydrate(load);
  });
  for (const child of el.children) io.observe(child);
};

export default visibleYield;
