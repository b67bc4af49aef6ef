#!/usr/bin/env node
// `pnpm test` after the install: turbo runs, then the suite's one closing line.
//   1. build:root, typecheck:root, lint:root, check:repo: one `tsc -b` over the solution (the
//      type-check re-checks it), Biome and the layout check, each cached on its inputs;
//   2. every package's test:unit, test:int and test:e2e (`--continue`: a failed task does not
//      stop the others), each cached on its package's sources, its
//      workspace dependencies' (the `transit` tasks), the test config, the environment and the
//      toolchain;
//   3. the counts each test task left in `.turbo/test-counts/` (a cache hit restores its file)
//      added into `N passed, N failed, N skipped`, printed last and appended to
//      WHARF_TEST_SUMMARY_FILE when set.
// Arguments go to the second run: `pnpm test --affected`, `pnpm test --filter=@wharf/cli...`.
// `--tier=faults` runs the fault tier instead of the other three (test/src/*.faults.test.ts: the
// native cluster's journeys — up, processes stopped and started, a rolling upgrade — and the
// cluster broken under a swarm, about eight minutes on two cores: `.ci/run` runs it after
// `pnpm test`, which it would take past eight minutes).
// TURBO_FORCE=true (what CI sets) runs everything with no cache.
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTurbo, turboEnvironment } from './turbo.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const started = Date.now();
const seconds = () => `${Math.round((Date.now() - started) / 1000)} s`;

/** The workspace folders (pnpm-workspace.yaml: packages/*, apps/*, test, bench). */
function workspaces() {
  const grouped = ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(root, group, entry.name)),
  );
  return [...grouped, join(root, 'test'), join(root, 'bench')];
}

const countsDirs = workspaces().map((dir) => join(dir, '.turbo', 'test-counts'));
const env = await turboEnvironment();
const tierArgument = process.argv.slice(2).find((arg) => arg.startsWith('--tier='));
const extra = process.argv.slice(2).filter((arg) => arg !== tierArgument);
const tier = tierArgument?.slice('--tier='.length);
if (tier !== undefined && tier !== 'faults') {
  console.error(
    `[test] --tier=${tier}: the only tier run on its own here is faults (pnpm test:unit, test:int and test:e2e run the others)`,
  );
  process.exit(2);
}

// The fault tier alone needs the build only: the checks ran with the other tiers (`.ci/run`).
const checks = await runTurbo(
  ['run', 'build:root', ...(tier === 'faults' ? [] : ['typecheck:root', 'lint:root', 'check:repo'])],
  env,
);
if (checks !== 0) {
  console.error(`[test] build or checks failed after ${seconds()}: no tests run`);
  process.exit(checks);
}
console.log(`[test] build and checks done in ${seconds()}`);

// Only this run's tasks leave counts: the ones it ran write theirs, its cache hits restore theirs.
for (const dir of countsDirs) rmSync(dir, { recursive: true, force: true });
// turbo starts the tasks that are ready in the order of the package graph, and @wharf/test, which
// depends on every package, comes last: its e2e task (about five minutes, the longest by far)
// would start after two minutes of the others. It gets a turbo run of its own, started at the same
// time as the unit and int tasks' run (two at a time): three test tasks, three vitest workers each.
const concurrency = extra.some((arg) => arg.startsWith('--concurrency')) ? [] : ['--concurrency=2'];
const statuses =
  tier === 'faults'
    ? [await runTurbo(['run', 'test:faults', '--continue', ...extra], env)]
    : await Promise.all([
        runTurbo(['run', 'test:e2e', '--continue', ...extra], env),
        runTurbo(['run', 'test:unit', 'test:int', '--continue', ...concurrency, ...extra], env),
      ]);
const tests = statuses.find((status) => status !== 0) ?? 0;

// The closing line's format has one home: the reporter's module, built by step 1.
const { addCounts, closingLine, parseClosingLine } = await import(
  join(root, 'test', 'dist', 'closing-line-reporter.js')
);
const runs = [];
for (const dir of countsDirs) {
  if (!existsSync(dir)) continue;
  for (const file of readdirSync(dir).sort()) {
    const lines = readFileSync(join(dir, file), 'utf8').trim().split('\n');
    const counts = parseClosingLine(lines.at(-1) ?? '');
    const task = `${relative(root, join(dir, '..', '..')) || '.'} test:${file.replace(/\.txt$/, '')}`;
    if (counts === undefined) {
      console.error(`[test] ${task}: no closing line in ${file}`);
      runs.push({ passed: 0, failed: 1, skipped: 0 });
    } else {
      console.log(`[test] ${task.padEnd(36)} ${closingLine(counts)}`);
      runs.push(counts);
    }
  }
}
const total = addCounts(runs);
if (tests !== 0 && total.failed === 0) {
  console.error('[test] turbo failed with no failed test counted: counted as one failure');
  total.failed = 1;
}
console.log(`[test] ${runs.length} test tasks in ${seconds()}`);
const line = closingLine(total);
// biome-ignore lint/suspicious/noUndeclaredEnvVars: read here, outside turbo; kept out of the hash on purpose (CI sets a fresh temporary file per run).
const summaryFile = process.env.WHARF_TEST_SUMMARY_FILE;
if (summaryFile !== undefined && summaryFile !== '') appendFileSync(summaryFile, `${line}\n`);
console.log(line);
process.exit(tests);
