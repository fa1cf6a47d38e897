// Module hooks that load the project's TypeScript: each .ts file is compiled by esbuild (types
// removed, nothing bundled, the tsconfig's language options) with an inline source map. The
// service runs through these rather than tsx's loader because tsx compiles with esbuild's
// keepNames, which wraps every function expression in a naming call at run time: closures made
// per request paid for it (see `npm run bench:oauth`).
// Identifiers are not renamed here, so every function keeps its own name anyway.

import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

const TS_OPTIONS = {
  loader: 'ts',
  format: 'esm',
  target: `node${process.versions.node}`,
  sourcemap: 'inline',
  // as tsconfig.json compiles (ES2022 class fields)
  tsconfigRaw: { compilerOptions: { target: 'ES2022', useDefineForClassFields: true, verbatimModuleSyntax: false } },
};

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const source = await readFile(path, 'utf8');
  const { code } = await transform(source, { ...TS_OPTIONS, sourcefile: path });
  return { format: 'module', source: code, shortCircuit: true };
}
