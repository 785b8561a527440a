// `client:visible-yield`: Astro's client:visible, hydrating in a task of its own (see next-task.ts). The news islands.
import type { ClientDirective } from 'astro';
import visible from 'astro/runtime/client/visible.js';
import { yieldBeforeHydrate } from './next-task.ts';

const visibleYield: ClientDirective = (load, options, el) => visible(yieldBeforeHydrate(load), options, el);

export default visibleYield;
