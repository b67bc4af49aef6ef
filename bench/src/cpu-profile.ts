#!/usr/bin/env node
// Reads the main-thread CPU profiles a worker wrote under `--cpu-prof` (the benchmarks start it so
// when `WHARF_BENCH_WORKER_CPU_PROF=<dir>` is set) and prints, per profile, the main thread's busy
// milliseconds per instance between its first and last script capture, and where they went.
// Usage: node bench/dist/cpu-profile.js <dir> <instances> [function …]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CpuProfile, cpuBreakdown, topSelfTime } from './cpu-profile-breakdown.js';

const [dir, instancesText, ...extra] = process.argv.slice(2);
const instances = Number(instancesText);
if (dir === undefined || !(instances > 0)) {
  console.error('usage: node bench/dist/cpu-profile.js <dir> <instances> [function …]');
  process.exit(2);
}
const functions = ['mkdirSync', 'rmdirSync', 'captureProcess', ...extra];
// CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread.
for (const file of readdirSync(dir).filter((name) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(name))) {
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  const breakdown = cpuBreakdown(profile, 'captureProcess', functions);
  const per = (ms: number) => `${(ms / instances).toFixed(2)} ms`;
  console.log(
    `${file}: window ${(breakdown.windowMs / 1_000).toFixed(1)} s, busy ${per(breakdown.busyMs)} an instance ` +
      `(${((100 * breakdown.busyMs) / Math.max(breakdown.windowMs, 1)).toFixed(0)}% of the window), GC ${per(breakdown.gcMs)}`,
  );
  for (const [name, ms] of Object.entries(breakdown.inclusiveMs)) console.log(`  under ${name}: ${per(ms)}`);
  for (const top of topSelfTime(profile, 'captureProcess', 15))
    console.log(
      `  self ${per(top.ms)}  ${top.name || '(anonymous)'} ${top.url.replace(/^.*\/(packages|node_modules)\//, '')}`,
    );
}
