import { loadSwarmTree, type SwarmDefinition } from '@wharf/orchestrator';

/**
 * The swarm `parent.yaml` of `files` with the swarm files it names (`swarm: ./child.yaml`) read
 * from `files` too, as `wharf run` reads them from disk relative to the file naming them.
 *
 * @example
 * ```ts
 * const definition = await swarmTreeFromFiles({ 'parent.yaml': parent, 'notes.yaml': notes });
 * ```
 */
export function swarmTreeFromFiles(files: Record<string, string>): Promise<SwarmDefinition> {
  return loadSwarmTree(
    { source: 'parent.yaml', text: files['parent.yaml'] as string },
    {
      read: async (path) => {
        const source = path.replace(/^\.\//, '');
        const text = files[source];
        if (text === undefined) throw new Error(`no ${source}`);
        return { source, text };
      },
    },
  );
}
