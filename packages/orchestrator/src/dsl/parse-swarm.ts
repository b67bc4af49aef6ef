import { isCollection, LineCounter, type Node, parseDocument } from 'yaml';
import type { z } from 'zod';
import { formatPath } from './format-path.js';
import { SwarmDefinitionError, type SwarmIssue } from './swarm-definition-error.js';
import { type SwarmDefinition, swarmDefinitionSchema } from './swarm-schema.js';
import { validateGraph } from './validate-graph.js';

/** Options of {@link parseSwarm}. */
export interface ParseSwarmOptions {
  /** File name used in error messages. */
  source?: string;
}

/**
 * Parses and validates a swarm definition from YAML. Every problem (YAML syntax, schema,
 * unknown dependencies or agents, cycles) is reported at once in a
 * {@link SwarmDefinitionError} whose issues carry the field path, line and column.
 *
 * @example
 * ```ts
 * const definition = parseSwarm(await readFile('swarm.yaml', 'utf8'), { source: 'swarm.yaml' });
 * console.log(Object.keys(definition.tasks));
 * ```
 */
export function parseSwarm(text: string, options: ParseSwarmOptions = {}): SwarmDefinition {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) {
    throw new SwarmDefinitionError(
      document.errors.map((error) => {
        const position = lineCounter.linePos(error.pos[0]);
        return {
          path: '',
          message: `YAML: ${error.message.split('\n')[0]}`,
          line: position.line,
          column: position.col,
        };
      }),
      options.source,
    );
  }
  const parsed = swarmDefinitionSchema.safeParse(document.toJS() ?? {});
  if (!parsed.success) {
    throw new SwarmDefinitionError(
      parsed.error.issues.map((issue) => locate(issue, document.contents, lineCounter)),
      options.source,
    );
  }
  const graphIssues = validateGraph(parsed.data).map((issue) =>
    withPosition(issue, pathKeys(issue.path), document.contents, lineCounter),
  );
  if (graphIssues.length > 0) throw new SwarmDefinitionError(graphIssues, options.source);
  return parsed.data;
}

/**
 * Validates an already-parsed definition object (e.g. JSON from an API) with the same
 * rules as {@link parseSwarm}, without line numbers.
 *
 * @example
 * ```ts
 * const definition = validateSwarm({ name: 'x', tasks: { a: { script: { content: 'echo hi' } } } });
 * ```
 */
export function validateSwarm(value: unknown, options: ParseSwarmOptions = {}): SwarmDefinition {
  const parsed = swarmDefinitionSchema.safeParse(value);
  if (!parsed.success) {
    throw new SwarmDefinitionError(
      parsed.error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message })),
      options.source,
    );
  }
  const graphIssues = validateGraph(parsed.data);
  if (graphIssues.length > 0) throw new SwarmDefinitionError(graphIssues, options.source);
  return parsed.data;
}

function locate(issue: z.core.$ZodIssue, root: Node | null, lineCounter: LineCounter): SwarmIssue {
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') message = `unknown field(s): ${issue.keys.join(', ')}`;
  return withPosition({ path: formatPath(issue.path), message }, issue.path, root, lineCounter);
}

function withPosition(
  issue: SwarmIssue,
  path: readonly PropertyKey[],
  root: Node | null,
  lineCounter: LineCounter,
): SwarmIssue {
  const node = deepestNode(root, path);
  const offset = node?.range?.[0];
  if (offset === undefined) return issue;
  const position = lineCounter.linePos(offset);
  return { ...issue, line: position.line, column: position.col };
}

/** The YAML node at `path`, or the deepest existing ancestor when the path is missing. */
function deepestNode(root: Node | null, path: readonly PropertyKey[]): Node | null {
  let node = root;
  for (const key of path) {
    if (!isCollection(node)) break;
    const child = node.get(typeof key === 'symbol' ? String(key) : key, true) as Node | undefined;
    if (child === undefined || child === null) break;
    node = child;
  }
  return node;
}

function pathKeys(path: string): PropertyKey[] {
  const keys: PropertyKey[] = [];
  for (const part of path.split('.')) {
    const match = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (match === null) {
      keys.push(part);
      continue;
    }
    if (match[1] !== undefined && match[1] !== '') keys.push(match[1]);
    for (const index of match[2]?.matchAll(/\[(\d+)\]/g) ?? []) keys.push(Number(index[1]));
  }
  return keys;
}
