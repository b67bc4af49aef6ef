import { describe, expect, it } from 'vitest';
import { type CpuProfile, cpuBreakdown, topSelfTime } from './cpu-profile-breakdown.js';

// root → (idle); root → captureProcess → mkdirSync; root → (garbage collector); root → startUp
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: { functionName: '(root)', url: '' }, children: [2, 3, 5, 6] },
    { id: 2, callFrame: { functionName: '(idle)', url: '' } },
    { id: 3, callFrame: { functionName: 'captureProcess', url: 'capture.js' }, children: [4] },
    { id: 4, callFrame: { functionName: 'mkdirSync', url: 'node:fs' } },
    { id: 5, callFrame: { functionName: '(garbage collector)', url: '' } },
    { id: 6, callFrame: { functionName: 'startUp', url: 'main.js' } },
  ],
  // start-up (outside the window), then capture, mkdir, idle, GC, capture, then start-up again (outside)
  samples: [6, 3, 4, 2, 5, 3, 6],
  timeDeltas: [0, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000],
};

describe('cpuBreakdown', () => {
  it('counts busy, GC and inclusive time between the first and last sample under the window function', () => {
    // Window: samples 1..5; durations are the next sample's delta: 2, 4, 8, 16, 32 ms.
    expect(cpuBreakdown(profile, 'captureProcess', ['mkdirSync', 'captureProcess'])).toEqual({
      windowMs: 62,
      busyMs: 54,
      gcMs: 16,
      inclusiveMs: { mkdirSync: 4, captureProcess: 38 },
    });
  });

  it('is empty when no sample runs the window function', () => {
    expect(cpuBreakdown(profile, 'nothing', ['mkdirSync'])).toEqual({
      windowMs: 0,
      busyMs: 0,
      gcMs: 0,
      inclusiveMs: { mkdirSync: 0 },
    });
  });
});

describe('topSelfTime', () => {
  it('ranks the window’s top frames by self time, idle left out', () => {
    expect(topSelfTime(profile, 'captureProcess', 2)).toEqual([
      { name: 'captureProcess', url: 'capture.js', ms: 34 },
      { name: '(garbage collector)', url: '', ms: 16 },
    ]);
  });
});
