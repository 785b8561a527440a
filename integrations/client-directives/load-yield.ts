// `client:load-yield`: Astro's client:load, hydrating in a task of its own (see next-task.ts). The quiz and the
// signed-in area.
import type { ClientDirective } from 'astro';
import load from 'astro/runtime/client/load.js';
import { yieldBeforeHydrate } from './next-task.ts';

const loadYield: ClientDirective = (loadIsland, options, el) => load(yieldBeforeHydrate(loadIsland), options, el);

export default loadYield;
