import { alwaysOnToolNames, builtinToolNames, spawnWorkerToolName } from '../shared/tool-names.js';
import { nameHint } from './suggest-names.js';
import type { SwarmIssue } from './swarm-definition-error.js';

/**
 * Checks every agent's `tools` against the tools it can get: the built-ins, the ones every
 * agent has, and `workerTools` (the names of tools registered with the workers). An unknown
 * name is an issue at `agents.<name>.tools[<i>]`, with the near names it may have meant.
 *
 * @example
 * ```ts
 * validateTools({ coder: { tools: ['shel'] } }, []);
 * // [{ path: 'agents.coder.tools[0]', message: 'unknown tool "shel" (did you mean "shell"?)…' }]
 * ```
 */
export function validateTools(
  agents: Readonly<Record<string, { tools: readonly string[] }>>,
  workerTools: readonly string[],
): SwarmIssue[] {
  const selectable = [...builtinToolNames, spawnWorkerToolName, ...workerTools];
  const known = new Set<string>([...selectable, ...alwaysOnToolNames]);
  const hint = nameHint(selectable);
  const issues: SwarmIssue[] = [];
  for (const [agent, spec] of Object.entries(agents)) {
    spec.tools.forEach((tool, index) => {
      if (known.has(tool)) return;
      issues.push({
        path: `agents.${agent}.tools[${index}]`,
        message: `unknown tool "${tool}"${hint(tool)}; tools registered with the workers are named by parseSwarm's \`tools\` option`,
      });
    });
  }
  return issues;
}
