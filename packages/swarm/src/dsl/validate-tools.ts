import { alwaysOnToolNames, builtinToolNames, spawnWorkerToolName } from '../contracts/tool-names.js';
import { nameHint, nearNames } from './suggest-names.js';
import type { SwarmIssue } from './swarm-definition-error.js';

/**
 * Checks every agent's `tools` against the tools it can get: the built-ins, `spawn_worker`,
 * the ones every agent has, and `workerTools` (the names of tools registered with the
 * workers). When `workerTools` is given, any other name is an issue at
 * `agents.<name>.tools[<i>]`, with the near names it may have meant. When it is not (the
 * caller does not know the workers' tools), only a name one or two edits from a Wharf tool is
 * an issue (`shel`: did you mean `shell`?); other names are left to the worker, which fails
 * the task when it starts, naming the agent and the tool.
 *
 * @example
 * ```ts
 * validateTools({ coder: { tools: ['shel'] } }, []);
 * // [{ path: 'agents.coder.tools[0]', message: 'unknown tool "shel" (did you mean "shell"?)…' }]
 * validateTools({ coder: { tools: ['lookup'] } }, undefined); // [] (the worker checks it)
 * ```
 */
export function validateTools(
  agents: Readonly<Record<string, { tools: readonly string[] }>>,
  workerTools: readonly string[] | undefined,
): SwarmIssue[] {
  const wharfTools = [...builtinToolNames, spawnWorkerToolName];
  const selectable = [...wharfTools, ...(workerTools ?? [])];
  const known = new Set<string>([...selectable, ...alwaysOnToolNames]);
  const hint = nameHint(selectable);
  const nearWharfTool = nearNames([...wharfTools, ...alwaysOnToolNames]);
  const issues: SwarmIssue[] = [];
  for (const [agent, spec] of Object.entries(agents)) {
    spec.tools.forEach((tool, index) => {
      if (known.has(tool)) return;
      if (workerTools === undefined) {
        const near = nearWharfTool(tool);
        if (near.length === 0) return;
        issues.push({
          path: `agents.${agent}.tools[${index}]`,
          message: `unknown tool "${tool}" (did you mean ${near.map((name) => `"${name}"`).join(' or ')}?); a tool of the workers' own is named by parseSwarm's \`tools\` option (\`wharf run --tools\`, WHARF_TOOLS)`,
        });
        return;
      }
      issues.push({
        path: `agents.${agent}.tools[${index}]`,
        message: `unknown tool "${tool}"${hint(tool)}; tools registered with the workers are named by parseSwarm's \`tools\` option (\`wharf run --tools\`, WHARF_TOOLS)`,
      });
    });
  }
  return issues;
}
