import { loadSwarmTree } from '@wharf/orchestrator';
import { describe, expect, it } from 'vitest';
import { gatedTasks } from './gated-tasks.js';

const files: Record<string, string> = {
  'parent.yaml': `name: parent
tasks:
  notes: { swarm: ./notes.yaml }
  deploy: { depends_on: [notes], approval: { prompt: Ship? }, script: { content: echo } }
`,
  'notes.yaml': `name: notes
tasks:
  draft: { script: { content: echo } }
  publish: { depends_on: [draft], approval: {}, script: { content: echo } }
`,
};

describe('gatedTasks', () => {
  it('names the gates of the run and of the swarms its swarm: tasks run, as wharf approve takes them', async () => {
    const definition = await loadSwarmTree(
      { source: 'parent.yaml', text: files['parent.yaml'] as string },
      {
        read: async (path) => {
          const source = path.replace(/^\.\//, '');
          return { source, text: files[source] as string };
        },
      },
    );
    expect(gatedTasks(definition)).toEqual(['deploy', 'notes.publish']);
  });
});
