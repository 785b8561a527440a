// `client:load-yield`: client:load, hydrating in a task of its own (see next-task.ts). The quiz and the
// signed-in area.
import type { ClientDirective } from 'astro';
import { loadThenHydrate } from './next-task.ts';

const loadYield: ClientDirective = (load) => {
  void loadThenHydrate(load);
};

export default loadYield;
