// A Vite plugin for the browser build: the chunk that holds React DOM starts with V8's explicit compile hint
// (`//# allFunctionsCalledOnLoad`, Chromium 136 and later). React DOM runs nearly all of its code while an island
// hydrates; with the hint the browser compiles it on a background thread as it downloads, instead of function by
// function on the main thread when first called (figures: docs/performance.md). Other browsers read a comment.
// The line is added after the chunk's name was hashed, so the name is the same with or without it.
import type { Plugin } from 'vite';

export const COMPILE_HINT = '//# allFunctionsCalledOnLoad\n';
const REACT_DOM = /[\\/]node_modules[\\/]react-dom[\\/]/;

export function reactDomCompileHint(): Plugin {
  return {
    name: 'signals:react-dom-compile-hint',
    apply: 'build',
    applyToEnvironment: (environment) => environment.name === 'client',
    // After minification, which would drop the comment; the hint must be the file's first line.
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type === 'chunk' && chunk.moduleIds.some((id) => REACT_DOM.test(id))) {
          chunk.code = COMPILE_HINT + chunk.code;
        }
      }
    },
  };
}
