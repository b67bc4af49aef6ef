/** The parts of a V8 `.cpuprofile` (what `node --cpu-prof` writes) this breakdown reads. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  samples: number[];
  /** Microseconds since the previous sample (the first: since `startTime`). */
  timeDeltas: number[];
}

/** Where a thread's time went between the first and the last sample that ran `windowFunction`. */
export interface CpuBreakdown {
  /** Milliseconds from the window's first sample to its last. */
  windowMs: number;
  /** Milliseconds not idle (V8's `(idle)` node) in the window. */
  busyMs: number;
  /** Milliseconds in V8's `(garbage collector)` node. */
  gcMs: number;
  /** For each name asked for, milliseconds of samples with a frame of that function name on their stack. */
  inclusiveMs: Record<string, number>;
}

/**
 * Where a thread's time went, between its first and last sample with `windowFunction` on the
 * stack (the worker's start-up and shutdown are left out): busy, GC, and the time under each of
 * `functions` (inclusive: a sample counts for each named function on its stack).
 *
 * @example
 * ```ts
 * const profile = JSON.parse(readFileSync('CPU.…cpuprofile', 'utf8')) as CpuProfile;
 * cpuBreakdown(profile, 'captureProcess', ['mkdirSync', 'rmdirSync']);
 * // { windowMs: 41000, busyMs: 17400, gcMs: 800, inclusiveMs: { mkdirSync: 1200, rmdirSync: 900 } }
 * ```
 */
export function cpuBreakdown(
  profile: CpuProfile,
  windowFunction: string,
  functions: readonly string[],
): CpuBreakdown {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const stackNames = new Map<number, Set<string>>();
  const namesOf = (id: number): Set<string> => {
    const known = stackNames.get(id);
    if (known !== undefined) return known;
    const up = parent.get(id);
    const names = new Set(up === undefined ? [] : namesOf(up));
    names.add(byId.get(id)?.callFrame.functionName ?? '');
    stackNames.set(id, names);
    return names;
  };
  const inclusiveMs: Record<string, number> = Object.fromEntries(functions.map((name) => [name, 0]));
  const breakdown = { windowMs: 0, busyMs: 0, gcMs: 0, inclusiveMs };
  for (const { id, ms } of cpuBreakdownWindow(profile, windowFunction)) {
    const names = namesOf(id);
    breakdown.windowMs += ms;
    if (names.has('(idle)')) continue;
    breakdown.busyMs += ms;
    if (names.has('(garbage collector)')) breakdown.gcMs += ms;
    for (const name of functions) if (names.has(name)) inclusiveMs[name] = (inclusiveMs[name] ?? 0) + ms;
  }
  return breakdown;
}

/**
 * The functions with the most self time (the frame on top of the stack) in the same window as
 * {@link cpuBreakdown}, `(idle)` left out: name, file and milliseconds, most first.
 *
 * @example
 * ```ts
 * topSelfTime(profile, 'captureProcess', 3);
 * // [{ name: '(garbage collector)', url: '', ms: 800 }, { name: 'mkdirSync', url: 'node:fs', ms: 600 }, …]
 * ```
 */
export function topSelfTime(
  profile: CpuProfile,
  windowFunction: string,
  count: number,
): { name: string; url: string; ms: number }[] {
  const window = cpuBreakdownWindow(profile, windowFunction);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, { name: string; url: string; ms: number }>();
  for (const { id, ms } of window) {
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined || frame.functionName === '(idle)') continue;
    const key = `${frame.functionName} ${frame.url}`;
    const entry = self.get(key) ?? { name: frame.functionName, url: frame.url, ms: 0 };
    entry.ms += ms;
    self.set(key, entry);
  }
  return [...self.values()].sort((a, b) => b.ms - a.ms).slice(0, count);
}

/** The samples (node id, milliseconds) from the first to the last with `windowFunction` on the stack. */
function cpuBreakdownWindow(profile: CpuProfile, windowFunction: string): { id: number; ms: number }[] {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const under = new Map<number, boolean>();
  const hasWindow = (id: number): boolean => {
    const known = under.get(id);
    if (known !== undefined) return known;
    const up = parent.get(id);
    const result =
      byId.get(id)?.callFrame.functionName === windowFunction || (up !== undefined && hasWindow(up));
    under.set(id, result);
    return result;
  };
  // Sample i lasts until sample i + 1: its duration is the next delta.
  const times: number[] = [];
  let now = 0;
  for (const delta of profile.timeDeltas) {
    now += delta;
    times.push(now);
  }
  const marks = profile.samples.map(hasWindow);
  const first = marks.indexOf(true);
  const last = marks.lastIndexOf(true);
  const samples: { id: number; ms: number }[] = [];
  if (first === -1) return samples;
  for (let index = first; index <= last; index++)
    samples.push({
      id: profile.samples[index] as number,
      ms: ((times[index + 1] ?? times[index] ?? 0) - (times[index] ?? 0)) / 1_000,
    });
  return samples;
}
