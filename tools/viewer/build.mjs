// Builds the gjkd page (gjkctl view / trace, the Python client's view): bundles src/main.js
// with three.js into one minified IIFE script (esbuild) and writes template.html with that
// script inlined; only the data placeholder @GJKD_DATA@ is left for gjkctl to fill.
//   node build.mjs OUT.html [BUNDLE.js]
// Resolves three and esbuild from NODE_PATH (the build tree's node_modules from `npm ci`).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const modules = process.env.NODE_PATH || join(here, 'node_modules');
const require = createRequire(join(resolve(modules), 'x.js'));
const esbuild = require('esbuild');
const [out, bundleOut] = process.argv.slice(2);
if (!out) { console.error('usage: node build.mjs OUT.html [BUNDLE.js]'); process.exit(2); }
const r = await esbuild.build({
  entryPoints: [join(here, 'src', 'main.js')],
  bundle: true, format: 'iife', minify: true, write: false, target: 'es2020',
  nodePaths: [modules], legalComments: 'none', logLevel: 'warning',
});
let js = r.outputFiles[0].text;
// Inside <script>, "</script" would end the element: the bundle must not contain it.
js = js.replace(/<\/(script)/gi, '<\\/$1');
const html = readFileSync(join(here, 'template.html'), 'utf8');
const parts = html.split('@GJKD_SCRIPT@');
if (parts.length !== 2 || html.split('@GJKD_DATA@').length !== 2) throw new Error('template: one @GJKD_SCRIPT@ and one @GJKD_DATA@');
writeFileSync(out, parts[0] + js + parts[1]);
if (bundleOut) writeFileSync(bundleOut, js);
console.log(`gjkd page: ${out} (script ${js.length} bytes)`);
