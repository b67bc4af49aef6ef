#!/usr/bin/env node
// One package's share of a test tier, as a turbo task: `node ../../scripts/test-task.mjs unit`
// from a package folder runs the root vitest config's `unit` project on that folder's files only.
// The run's counts (`N passed, N failed, N skipped`) go to `.turbo/test-counts/<tier>.txt` in
// the package, a declared output of the task, so a cache hit restores them and
// `scripts/test-summary.mjs` can add every task's counts into the suite's one closing line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const tiers = ['unit', 'int', 'e2e', 'faults'];
const [tier, ...rest] = process.argv.slice(2);
if (tier === undefined || !tiers.includes(tier)) {
  console.error(`usage: test-task.mjs <${tiers.join('|')}> [vitest options]`);
  process.exit(2);
}

const root = fileURLToPath(new URL('..', import.meta.url));
const packageDir = process.cwd();
const countsFile = join(packageDir, '.turbo', 'test-counts', `${tier}.txt`);
rmSync(countsFile, { force: true });
mkdirSync(dirname(countsFile), { recursive: true });

const vitest = join(
  dirname(createRequire(join(root, 'package.json')).resolve('vitest/package.json')),
  'vitest.mjs',
);
// An absolute folder (with its trailing separator) as the filter: vitest keeps exactly the
// files under it, where a relative `test/` would also match `packages/x/src/a.test.ts`.
const filter = packageDir.endsWith(sep) ? packageDir : `${packageDir}${sep}`;
console.log(`[test-task] ${tier} tests of ${relative(root, packageDir) || '.'}`);
const run = spawnSync(process.execPath, [vitest, 'run', '--root', root, '--project', tier, ...rest, filter], {
  stdio: 'inherit',
  env: { ...process.env, WHARF_TEST_SUMMARY_FILE: countsFile },
});
const status = run.status ?? 1;

// A run that failed outside any test (a global setup that threw, an unhandled error, a crash)
// counted no failed test; its counts say one failure so the closing line cannot read as a pass.
if (status !== 0) {
  const { closingLine, parseClosingLine } = await import(
    join(root, 'test', 'dist', 'closing-line-reporter.js')
  );
  const written = existsSync(countsFile) ? readFileSync(countsFile, 'utf8').trim().split('\n').at(-1) : '';
  const counts = parseClosingLine(written ?? '') ?? { passed: 0, failed: 0, skipped: 0 };
  if (counts.failed === 0) {
    console.error(`[test-task] vitest exited with ${status} and no failed test: counted as one failure`);
    writeFileSync(countsFile, `${closingLine({ ...counts, failed: 1 })}\n`);
  }
}
process.exit(status);
