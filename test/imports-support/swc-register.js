// Lets a child `node` process run the TypeScript sources as Jest does (SWC, decorator metadata):
// `node -r ./test/imports-support/swc-register.js some-file.ts`.
const Module = require('node:module');
const { readFileSync } = require('node:fs');
const { transformSync } = require('@swc/core');

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  if (parent && /^\.{1,2}\//.test(request) && request.endsWith('.js')) {
    try {
      return resolve.call(this, request.replace(/\.js$/, '.ts'), parent, ...rest);
    } catch {
      // a real .js file
    }
  }
  return resolve.call(this, request, parent, ...rest);
};

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
