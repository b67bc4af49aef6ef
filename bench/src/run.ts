#!/usr/bin/env node
// Runs every Wharf benchmark and prints its table. `--smoke` runs each with tiny
// sizes (seconds, for CI) to prove it still works; figures from smoke runs mean nothing.
import { benchmarks } from './registry.js';

const smoke = process.argv.includes('--smoke');
const only = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const selected = benchmarks.filter((bench) => only.length === 0 || only.includes(bench.name));
if (selected.length === 0) {
  console.log(only.length === 0 ? 'No benchmarks registered yet.' : `No benchmark named ${only.join(', ')}.`);
}
const started = performance.now();
for (const bench of selected) {
  console.log(`\n# ${bench.name}${smoke ? ' (smoke)' : ''}`);
  const benchStarted = performance.now();
  console.log(await bench.run({ smoke }));
  console.log(`(${bench.name}: ${seconds(performance.now() - benchStarted)})`);
}
if (selected.length > 1)
  console.log(`\n${selected.length} benchmarks in ${seconds(performance.now() - started)}`);

function seconds(ms: number): string {
  return `${(ms / 1_000).toFixed(1)} s`;
}
