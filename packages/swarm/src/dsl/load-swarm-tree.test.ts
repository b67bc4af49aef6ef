import { describe, expect, it } from 'vitest';
import { childSwarm, loadSwarmTree, type SwarmFile } from './load-swarm-tree.js';
import { SwarmDefinitionError } from './swarm-definition-error.js';

/** A reader over in-memory files; paths are taken as written (`./` dropped). */
function filesReader(files: Record<string, string>) {
  return async (path: string): Promise<SwarmFile> => {
    const source = path.replace(/^\.\//, '');
    const text = files[source];
    if (text === undefined) throw new Error(`ENOENT: no such file or directory, open '${source}'`);
    return { source, text };
  };
}

async function problem(files: Record<string, string>, root: string, maxDepth?: number) {
  try {
    await loadSwarmTree(
      { source: root, text: files[root] as string },
      { read: filesReader(files), ...(maxDepth === undefined ? {} : { maxDepth }) },
    );
  } catch (error) {
    if (SwarmDefinitionError.isInstance(error)) return { source: error.source, issues: error.issues };
    throw error;
  }
  throw new Error('expected a SwarmDefinitionError');
}

const child = `name: child
tasks:
  work:
    inputs: { v: †input.version, who: †input.audience || †input.version }
    script: { content: echo }
`;

/** A swarm whose one task runs `file` (a task `run` at line 3, its `swarm:` at 4:12). */
const runs = (name: string, file: string, inputs = '{ version: "1" }') =>
  `name: ${name}\ntasks:\n  run:\n    swarm: ${file}\n    inputs: ${inputs}\n`;

describe('loadSwarmTree', () => {
  it('attaches each child definition to its task, the whole tree', async () => {
    const files = {
      'a.yaml': runs('a', './b.yaml', '{}'),
      'b.yaml': `name: b\ntasks:\n  inner:\n    swarm: ./child.yaml\n    inputs: { version: "2" }\n`,
      'child.yaml': child,
    };
    const tree = await loadSwarmTree(
      { source: 'a.yaml', text: files['a.yaml'] },
      { read: filesReader(files) },
    );
    const b = childSwarm(tree.tasks.run as never);
    expect(b?.name).toBe('b');
    const inner = b?.tasks.inner;
    expect(inner?.swarm_inputs).toEqual({ version: '2' });
    expect(childSwarm(inner as never)?.tasks.work?.inputs).toEqual({
      v: '†input.version',
      who: '†input.audience || †input.version',
    });
  });

  it('names a file that cannot be read at the swarm: field', async () => {
    expect(await problem({ 'a.yaml': runs('a', './missing.yaml') }, 'a.yaml')).toEqual({
      source: 'a.yaml',
      issues: [
        {
          path: 'tasks.run.swarm',
          message: "cannot read ./missing.yaml: ENOENT: no such file or directory, open 'missing.yaml'",
          line: 4,
          column: 12,
        },
      ],
    });
  });

  it('refuses a cycle of files where it closes', async () => {
    const files = { 'a.yaml': runs('a', './b.yaml', '{}'), 'b.yaml': runs('b', './a.yaml', '{}') };
    expect(await problem(files, 'a.yaml')).toEqual({
      source: 'b.yaml',
      issues: [
        {
          path: 'tasks.run.swarm',
          message: 'swarm files form a cycle: a.yaml → b.yaml → a.yaml',
          line: 4,
          column: 12,
        },
      ],
    });
  });

  it('refuses a file that runs itself', async () => {
    const { issues } = await problem({ 'a.yaml': runs('a', './a.yaml', '{}') }, 'a.yaml');
    expect(issues[0]?.message).toBe('swarm files form a cycle: a.yaml → a.yaml');
  });

  it('refuses nesting deeper than maxDepth (default 4)', async () => {
    const files: Record<string, string> = {
      'leaf.yaml': 'name: leaf\ntasks:\n  t: { script: { content: echo } }\n',
    };
    for (let level = 0; level < 5; level++)
      files[`s${level}.yaml`] = runs(`s${level}`, level === 4 ? './leaf.yaml' : `./s${level + 1}.yaml`, '{}');
    expect(await problem(files, 's0.yaml')).toEqual({
      source: 's4.yaml',
      issues: [
        {
          path: 'tasks.run.swarm',
          message:
            'swarms nest more than 4 deep (maxDepth): s0.yaml → s1.yaml → s2.yaml → s3.yaml → s4.yaml → ./leaf.yaml',
          line: 4,
          column: 12,
        },
      ],
    });
    const shallow = await problem(files, 's3.yaml', 1);
    expect(shallow.source).toBe('s4.yaml');
    expect(shallow.issues[0]?.message).toMatch(/more than 1 deep/);
    const tree = await loadSwarmTree(
      { source: 's1.yaml', text: files['s1.yaml'] as string },
      { read: filesReader(files) },
    );
    expect(tree.name).toBe('s1');
  });

  it('refuses an input the child does not read, at its line and column, with the near name', async () => {
    const files = {
      'a.yaml': runs('a', './child.yaml', '{ version: "1", audiense: ops }'),
      'child.yaml': child,
    };
    expect(await problem(files, 'a.yaml')).toEqual({
      source: 'a.yaml',
      issues: [
        {
          path: 'tasks.run.inputs.audiense',
          message: './child.yaml reads no †input.audiense (did you mean "audience"?)',
          line: 5,
          column: 39,
        },
      ],
    });
  });

  it('refuses a required input the parent does not pass, at the task’s inputs', async () => {
    const files = { 'a.yaml': runs('a', './child.yaml', '{ audience: ops }'), 'child.yaml': child };
    expect(await problem(files, 'a.yaml')).toEqual({
      source: 'a.yaml',
      issues: [
        {
          path: 'tasks.run.inputs',
          message:
            './child.yaml needs †input.version (its tasks.work.inputs.v reads it): pass it in `inputs`',
          line: 5,
          column: 13,
        },
      ],
    });
  });

  it('reports a child file’s own problems in that file', async () => {
    const files = {
      'a.yaml': runs('a', './bad.yaml', '{}'),
      'bad.yaml': 'name: bad\ntasks:\n  t:\n    depends_on: [nope]\n    script: { content: echo }\n',
    };
    const { source, issues } = await problem(files, 'a.yaml');
    expect(source).toBe('bad.yaml');
    expect(issues[0]).toMatchObject({ path: 'tasks.t.depends_on[0]', line: 4, column: 18 });
  });
});
