/** A listed run as {@link nestRuns} orders it: what it needs of a run. */
export interface NestableRun {
  workflowId: string;
  /** The run that started it as a child (a `swarm:` task's), else null. */
  parent: string | null;
}

/**
 * The runs in the order `wharf list` draws them: each run whose parent is not listed where it
 * stands (most recent first), each child right under its parent, one level deeper (`depth`),
 * siblings in their listed order. A child whose parent is not among `runs` is drawn as a run of
 * its own (depth 0).
 *
 * @example
 * ```ts
 * nestRuns([{ workflowId: 'a/swarm/n', parent: 'a' }, { workflowId: 'a', parent: null }]);
 * // [{ run: { workflowId: 'a', … }, depth: 0 }, { run: { workflowId: 'a/swarm/n', … }, depth: 1 }]
 * ```
 */
export function nestRuns<TRun extends NestableRun>(runs: readonly TRun[]): { run: TRun; depth: number }[] {
  const listed = new Set(runs.map((run) => run.workflowId));
  const children = new Map<string, TRun[]>();
  for (const run of runs) {
    if (run.parent === null || !listed.has(run.parent) || run.parent === run.workflowId) continue;
    const siblings = children.get(run.parent);
    if (siblings === undefined) children.set(run.parent, [run]);
    else siblings.push(run);
  }
  const ordered: { run: TRun; depth: number }[] = [];
  const placed = new Set<string>();
  const place = (run: TRun, depth: number) => {
    if (placed.has(run.workflowId)) return;
    placed.add(run.workflowId);
    ordered.push({ run, depth });
    for (const child of children.get(run.workflowId) ?? []) place(child, depth + 1);
  };
  for (const run of runs) if (run.parent === null || !listed.has(run.parent)) place(run, 0);
  // A cycle of parents (never from Temporal) is drawn flat rather than lost.
  for (const run of runs) place(run, 0);
  return ordered;
}
