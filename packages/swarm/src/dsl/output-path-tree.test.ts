import { describe, expect, it } from 'vitest';
import { OutputPathTree } from './output-path-tree.js';

describe('OutputPathTree', () => {
  const tree = new OutputPathTree();
  tree.add('list', { kind: 'data', path: ['list'] }, false);
  tree.add('fan', { kind: 'data', path: ['fan'] }, true);
  tree.add('title', { kind: 'data', path: ['report', 'title'] }, false);
  tree.add('again', { kind: 'data', path: ['list'] }, true);
  tree.add('body', { kind: 'data', path: ['report', 'body'] }, false);

  it('walks a reference down the written paths, as far as any writer goes', () => {
    const nodes = tree.along({ kind: 'data', path: ['list', 'bytes'] });
    expect(nodes).toHaveLength(2);
    expect(nodes[1]?.writers.map((writer) => writer.task)).toEqual(['list', 'again']);
    expect(nodes[1]?.firstPlain?.task).toBe('list');
    expect(nodes[1]?.firstLooped?.task).toBe('again');
    expect(tree.along({ kind: 'results', path: ['list'] })).toEqual([]);
  });

  it('keeps the writers below a path in document order', () => {
    const [root, report] = tree.along({ kind: 'data', path: ['report'] });
    expect(report?.below.map((writer) => writer.task)).toEqual(['title', 'body']);
    expect(root?.below.map((writer) => [writer.task, writer.index])).toEqual([
      ['list', 0],
      ['fan', 1],
      ['title', 2],
      ['again', 3],
      ['body', 4],
    ]);
  });

  it('is empty until a writer is added', () => {
    expect(new OutputPathTree().empty).toBe(true);
    expect(tree.empty).toBe(false);
  });
});
