import { describe, expect, it } from 'vitest';
import { nestRuns } from './nest-runs.js';

const run = (workflowId: string, parent: string | null = null) => ({ workflowId, parent });

describe('nestRuns', () => {
  it('draws each child under its parent, one level deeper, children of children deeper still', () => {
    const ordered = nestRuns([
      run('b'),
      run('a/swarm/n/swarm/d', 'a/swarm/n'),
      run('a/swarm/n', 'a'),
      run('a/swarm/m', 'a'),
      run('a'),
    ]);
    expect(ordered.map(({ run, depth }) => `${depth}:${run.workflowId}`)).toEqual([
      '0:b',
      '0:a',
      '1:a/swarm/n',
      '2:a/swarm/n/swarm/d',
      '1:a/swarm/m',
    ]);
  });

  it('draws a child whose parent is not listed as a run of its own, and loses none', () => {
    const ordered = nestRuns([run('x/swarm/n', 'x'), run('y'), run('p', 'q'), run('q', 'p')]);
    expect(ordered.map(({ run, depth }) => `${depth}:${run.workflowId}`)).toEqual([
      '0:x/swarm/n',
      '0:y',
      '0:p',
      '1:q',
    ]);
  });
});
