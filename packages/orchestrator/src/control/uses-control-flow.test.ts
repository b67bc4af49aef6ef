import { describe, expect, it } from 'vitest';
import { parseSwarm } from '../dsl/parse-swarm.js';
import { usesControlFlow } from './uses-control-flow.js';

const swarm = (extra: string) =>
  parseSwarm(`name: flow
tasks:
  list:
    script: { content: ls }
    output: †data.list
  next:
    depends_on: [list]
    script: { content: cat }
${extra}`);

describe('usesControlFlow', () => {
  it('is false for plain tasks and repeat loops', () => {
    expect(usesControlFlow(swarm(''))).toBe(false);
    expect(usesControlFlow(swarm('    loop: { type: repeat, count: 2 }\n'))).toBe(false);
  });

  it.each([
    ['a when: condition', '    when: †data.list.exitCode == 0\n'],
    ['a map loop', '    loop: { type: map, over: †data.list.preview }\n'],
    ['a capped repeat loop', '    loop: { type: repeat, count: 4, max_concurrency: 2 }\n'],
    ['an approval gate', '    approval: { prompt: Go on? }\n'],
  ])('is true for %s', (_, extra) => {
    expect(usesControlFlow(swarm(extra))).toBe(true);
  });
});
