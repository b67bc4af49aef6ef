#!/usr/bin/env node
// Repository check run in CI: every workspace package has a README, a src/index.ts,
// an exports map (types first, ./package.json exposed) and sideEffects: false; a
// published one ships the root LICENSE, word for word, under the license it declares, and
// refuses to be packed by anything but pnpm (scripts/pack-with-pnpm.mjs); a workspace with
// tests of a tier (`*.test.ts`, `*.int.test.ts`, `*.e2e.test.ts`, `*.faults.test.ts`) has that
// tier's turbo task script (`test:unit`, `test:int`, `test:e2e`, `test:faults`), so no test file
// is left out of `pnpm test`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dirs = [
  ...['packages', 'apps'].flatMap((group) =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(group, entry.name)),
  ),
  'test',
  'bench',
];

const rootLicense = readFileSync(join(root, 'LICENSE'), 'utf8');
const problems = [];
for (const dir of dirs) {
  const at = (file) => join(root, dir, file);
  const need = (condition, message) => {
    if (!condition) problems.push(`${dir}: ${message}`);
  };
  need(existsSync(at('package.json')), 'missing package.json');
  if (!existsSync(at('package.json'))) continue;
  const pkg = JSON.parse(readFileSync(at('package.json'), 'utf8'));
  need(existsSync(at('README.md')), 'missing README.md');
  need(existsSync(at('src/index.ts')), 'missing src/index.ts');
  need(existsSync(at('tsconfig.json')), 'missing tsconfig.json');
  need(pkg.name?.startsWith('@wharf/'), `name "${pkg.name}" is not in the @wharf scope`);
  need(pkg.type === 'module', 'type is not "module"');
  need(pkg.sideEffects === false, 'sideEffects is not false');
  need(pkg.exports && typeof pkg.exports === 'object', 'no exports map');
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    if (subpath === './package.json') continue;
    need(
      typeof target === 'object' && Object.keys(target)[0] === 'types',
      `exports["${subpath}"] must list "types" first`,
    );
  }
  need(pkg.exports?.['./package.json'] === './package.json', 'exports does not expose ./package.json');
  const testFiles = existsSync(at('src'))
    ? readdirSync(at('src'), { recursive: true })
        .map(String)
        .filter((file) => file.endsWith('.test.ts'))
    : [];
  const tiers = {
    'test:unit': testFiles.filter((file) => !/\.(int|e2e|faults)\.test\.ts$/.test(file)),
    'test:int': testFiles.filter((file) => file.endsWith('.int.test.ts')),
    'test:e2e': testFiles.filter((file) => file.endsWith('.e2e.test.ts')),
    'test:faults': testFiles.filter((file) => file.endsWith('.faults.test.ts')),
  };
  for (const [script, files] of Object.entries(tiers))
    need(
      files.length === 0 || typeof pkg.scripts?.[script] === 'string',
      `has ${files.length} test file(s) of its ${script} tier (${files[0]}…) but no "${script}" script: pnpm test would skip them`,
    );
  const rootIndex = existsSync(at('src/index.ts')) ? readFileSync(at('src/index.ts'), 'utf8') : '';
  need(!/^export \* from/m.test(rootIndex), 'src/index.ts uses a blanket `export *`; list named exports');
  if (!pkg.private) {
    need(Array.isArray(pkg.files), 'a published package needs a files list');
    need(pkg.license === 'MIT', `license "${pkg.license}" is not "MIT"`);
    need(
      existsSync(at('LICENSE')) && readFileSync(at('LICENSE'), 'utf8') === rootLicense,
      'LICENSE is missing or differs from the root LICENSE',
    );
    need(
      pkg.scripts?.prepack === 'node ../../scripts/pack-with-pnpm.mjs',
      'a published package needs "prepack": "node ../../scripts/pack-with-pnpm.mjs" (npm pack would keep workspace:/catalog: versions)',
    );
  }
}

if (problems.length > 0) {
  console.error(`Repository check failed (${problems.length}):`);
  for (const problem of problems) console.error(`  - ${problem}`);
  process.exit(1);
}
console.log(`Repository check: ${dirs.length} packages ok`);
