import { expect, test } from 'vitest';
import { COMPILE_HINT, reactDomCompileHint } from '../../integrations/compile-hint.ts';

const chunk = (fileName: string, moduleIds: string[]) => ({ type: 'chunk', fileName, moduleIds, code: 'import"x";' });

test("only the chunk holding React DOM starts with V8's compile hint", () => {
  const bundle = {
    'client.js': chunk('client.js', [
      '/app/node_modules/scheduler/cjs/scheduler.production.js',
      '/app/node_modules/react-dom/cjs/react-dom-client.production.js',
    ]),
    'Quiz.js': chunk('Quiz.js', ['/app/src/islands/Quiz.tsx']),
    'react.js': chunk('react.js', ['/app/node_modules/react/cjs/react.production.js']),
  };
  const hook = reactDomCompileHint().generateBundle as (options: unknown, bundle: unknown) => void;
  hook({}, bundle);
  expect(bundle['client.js'].code).toBe(`${COMPILE_HINT}import"x";`);
  expect(COMPILE_HINT).toBe('//# allFunctionsCalledOnLoad\n');
  expect(bundle['Quiz.js'].code).toBe('import"x";');
  expect(bundle['react.js'].code).toBe('import"x";');
});
