import { utf8Length } from '@wharf/common';
import {
  Composer,
  CST,
  type Document,
  isAlias,
  isCollection,
  isMap,
  isPair,
  isScalar,
  Lexer,
  LineCounter,
  type Node,
  Parser,
  parseDocument,
  YAMLParseError,
} from 'yaml';
import type { z } from 'zod';
import { type SwarmDefinition, swarmDefinitionSchema } from '../contracts/swarm-schema.js';
import { formatPath } from './format-path.js';
import { readableGraph } from './readable-graph.js';
import { SwarmDefinitionError, type SwarmIssue } from './swarm-definition-error.js';
import { SwarmDefinitionTooLargeError } from './swarm-definition-too-large-error.js';
import { defaultSwarmSizeLimits, type SwarmSizeLimits } from './swarm-size-limits.js';
import { validateGraph } from './validate-graph.js';
import { validateOptions } from './validate-options.js';
import { validateTools } from './validate-tools.js';
import { YamlLocator } from './yaml-locator.js';

/** Options of {@link parseSwarm}. */
export interface ParseSwarmOptions {
  /** File name used in error messages. */
  source?: string;
  /** Size limits; each one left out is its {@link defaultSwarmSizeLimits} value. */
  sizeLimits?: Partial<SwarmSizeLimits>;
  /**
   * Names of the tools registered with the workers that will run the swarm
   * (`createWharfWorker({ tools })`). Given, an agent's `tools` may name these, the built-ins
   * (`shell`, `read_file`, `write_file`, `http_request`) and `spawn_worker`, and any other name
   * is an issue. Left out (the workers' tools are not known here), only a name one or two edits
   * from a Wharf tool is an issue (did you mean …?); other names are checked by the worker
   * when the task starts.
   */
  tools?: readonly string[];
}

/**
 * Parses and validates a swarm definition from YAML. Every problem (YAML syntax, schema,
 * unknown dependencies, agents or tools, cycles, unsatisfiable `†` inputs) is reported at once in a
 * {@link SwarmDefinitionError} whose issues carry the field path, line and column: schema
 * problems do not hide graph problems elsewhere in the file. Text over `maxBytes` or more
 * than `maxTasks` tasks is refused with a {@link SwarmDefinitionTooLargeError} before any
 * check; aliases that copy more than `maxAliasNodes` nodes are a YAML issue at the alias.
 *
 * @example
 * ```ts
 * const definition = parseSwarm(await readFile('swarm.yaml', 'utf8'), { source: 'swarm.yaml' });
 * console.log(Object.keys(definition.tasks));
 * ```
 */
export function parseSwarm(text: string, options: ParseSwarmOptions = {}): SwarmDefinition {
  const limits = { ...defaultSwarmSizeLimits, ...options.sizeLimits };
  const bytes = utf8Length(text);
  if (bytes > limits.maxBytes) {
    throw new SwarmDefinitionTooLargeError('maxBytes', bytes, limits.maxBytes, options.source);
  }
  const lineCounter = new LineCounter();
  const at = (offset: number | undefined) => {
    if (offset === undefined) return {};
    const position = lineCounter.linePos(offset);
    return { line: position.line, column: position.col };
  };
  const { tokens, tooDeep } = readSyntax(text, lineCounter, limits.maxDepth);
  if (tooDeep !== undefined) {
    throw new SwarmDefinitionError(
      [
        {
          path: '',
          message: `YAML: collections nested more than ${limits.maxDepth} deep (maxDepth), here at depth ${limits.maxDepth + 1}`,
          ...at(tooDeep),
        },
      ],
      options.source,
    );
  }
  const document = composeDocument(tokens, text.length);
  const syntaxIssues: SwarmIssue[] = document.errors.map((error) => ({
    path: '',
    message: `YAML: ${error.message.split('\n')[0]}`,
    ...at(error.pos[0]),
  }));
  for (const offset of duplicateKeys(document)) {
    syntaxIssues.push({ path: '', message: 'YAML: Map keys must be unique', ...at(offset) });
  }
  if (syntaxIssues.length > 0) {
    throw new SwarmDefinitionError(
      syntaxIssues.sort(
        (left, right) => (left.line ?? 0) - (right.line ?? 0) || (left.column ?? 0) - (right.column ?? 0),
      ),
      options.source,
    );
  }
  const tasksNode = isMap(document.contents) ? document.contents.get('tasks', true) : undefined;
  if (isMap(tasksNode) && tasksNode.items.length > limits.maxTasks) {
    throw new SwarmDefinitionTooLargeError(
      'maxTasks',
      tasksNode.items.length,
      limits.maxTasks,
      options.source,
    );
  }
  const aliasIssue = checkAliases(document, limits.maxAliasNodes);
  if (aliasIssue !== undefined) {
    throw new SwarmDefinitionError(
      [{ path: '', message: aliasIssue.message, ...at(aliasIssue.offset) }],
      options.source,
    );
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: -1 }) ?? {};
  } catch (error) {
    const alias = firstAlias(document);
    throw new SwarmDefinitionError(
      [{ path: '', message: `YAML: ${(error as Error).message}`, ...at(alias?.range?.[0]) }],
      options.source,
    );
  }
  const locator = new YamlLocator(document.contents, lineCounter);
  const checked = check(value, (issue, keys) => locator.locate(issue, keys), options.tools);
  if (checked.definition === undefined) throw new SwarmDefinitionError(checked.issues, options.source);
  return checked.definition;
}

/**
 * `issues` of a definition read from `text`, each with the line and column of its field path
 * (or of the deepest part of it the text has). For checks made after {@link parseSwarm}
 * accepted the text, such as the files its `swarm:` tasks name.
 *
 * @example
 * ```ts
 * locateIssues(text, [{ path: 'tasks.review.swarm', message: 'cannot read ./review.yaml' }]);
 * // [{ path: 'tasks.review.swarm', message: '…', line: 4, column: 12 }]
 * ```
 */
export function locateIssues(text: string, issues: readonly SwarmIssue[]): SwarmIssue[] {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: false });
  const locator = new YamlLocator(document.contents, lineCounter);
  return issues.map((issue) => locator.locate(issue, pathKeys(issue.path)));
}

/**
 * Validates an already-parsed definition object (e.g. JSON from an API) with the same
 * rules and task limit as {@link parseSwarm}, without line numbers.
 *
 * @example
 * ```ts
 * const definition = validateSwarm({ name: 'x', tasks: { a: { script: { content: 'echo hi' } } } });
 * ```
 */
export function validateSwarm(value: unknown, options: ParseSwarmOptions = {}): SwarmDefinition {
  const limits = { ...defaultSwarmSizeLimits, ...options.sizeLimits };
  const tasks = (value as { tasks?: unknown } | null | undefined)?.tasks;
  if (typeof tasks === 'object' && tasks !== null) {
    const count = Object.keys(tasks).length;
    if (count > limits.maxTasks) {
      throw new SwarmDefinitionTooLargeError('maxTasks', count, limits.maxTasks, options.source);
    }
  }
  const checked = check(value, (issue) => issue, options.tools);
  if (checked.definition === undefined) throw new SwarmDefinitionError(checked.issues, options.source);
  return checked.definition;
}

/**
 * The one document of `tokens`, as `parseDocument` composes it (a second document is an
 * error). yaml's own uniqueKeys check is quadratic in a mapping's size; duplicateKeys is linear.
 */
function composeDocument(tokens: readonly CST.Token[], length: number): Document.Parsed {
  const composer = new Composer({ uniqueKeys: false });
  let document: Document.Parsed | undefined;
  for (const composed of composer.compose(tokens, true, length)) {
    if (document === undefined) document = composed;
    else {
      document.errors.push(
        new YAMLParseError(
          [composed.range[0], composed.range[1]],
          'MULTIPLE_DOCS',
          'Source contains multiple documents; please use YAML.parseAllDocuments()',
        ),
      );
      break;
    }
  }
  return document as Document.Parsed;
}

/**
 * The syntax tree of `text`, read as yaml's `parseDocument` reads it, lexeme by lexeme, so that
 * it stops at the first collection nested deeper than `maxDepth` (its offset is `tooDeep`):
 * the composer recurses once per level and would overflow the stack on deep text, and a
 * pathological file (megabytes of `[`) is refused within its first lexemes, not parsed whole.
 */
function readSyntax(
  text: string,
  lineCounter: LineCounter,
  maxDepth: number,
): { tokens: CST.Token[]; tooDeep?: number } {
  const parser = new Parser(lineCounter.addNewLine);
  const tokens: CST.Token[] = [];
  lineCounter.addNewLine(0);
  for (const lexeme of new Lexer().lex(text)) {
    for (const token of parser.next(lexeme)) tokens.push(token);
    // The stack holds the document, the open collections and at most a node being read.
    if (parser.stack.length > maxDepth) {
      const open = parser.stack.filter((token) => CST.isCollection(token));
      if (open.length > maxDepth) return { tokens, tooDeep: (open[maxDepth] as CST.Token).offset };
    }
  }
  for (const token of parser.end()) tokens.push(token);
  return { tokens };
}

/**
 * Schema issues, then graph issues: on a valid definition, or else on what of it can be read
 * (see {@link readableGraph}), leaving out graph issues inside fields the schema rejected.
 */
function check(
  value: unknown,
  place: (issue: SwarmIssue, keys: readonly PropertyKey[]) => SwarmIssue,
  workerTools: readonly string[] | undefined,
): { issues: SwarmIssue[]; definition?: SwarmDefinition } {
  const parsed = swarmDefinitionSchema.safeParse(value);
  if (parsed.success) {
    const issues = [
      ...validateTools(parsed.data.agents, workerTools),
      ...validateGraph(parsed.data),
      ...validateOptions(parsed.data),
    ].map((issue) => place(issue, pathKeys(issue.path)));
    return issues.length > 0 ? { issues } : { issues, definition: parsed.data };
  }
  const schemaIssues = parsed.error.issues.map((issue) => place(describe(issue), issue.path));
  const graph = readableGraph(value);
  if (graph === undefined) return { issues: schemaIssues };
  const rejected = schemaIssues.map((issue) => issue.path);
  const graphIssues = validateGraph(graph).filter(
    (issue) => !rejected.some((path) => within(issue.path, path)),
  );
  return { issues: [...schemaIssues, ...graphIssues.map((issue) => place(issue, pathKeys(issue.path)))] };
}

/** Whether `path` is `parent` or a field inside it. */
function within(path: string, parent: string): boolean {
  if (parent === '') return false;
  return path === parent || path.startsWith(`${parent}.`) || path.startsWith(`${parent}[`);
}

function describe(issue: z.core.$ZodIssue): SwarmIssue {
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') message = `unknown field(s): ${issue.keys.join(', ')}`;
  return { path: formatPath(issue.path), message };
}

/**
 * The first alias at which the nodes copied by aliases, in document order, pass
 * `maxAliasNodes`: an alias bomb is refused before anything is expanded.
 */
function checkAliases(
  document: Document,
  maxAliasNodes: number,
): { message: string; offset?: number } | undefined {
  const anchors = new Map<string, Node>();
  const targets = new Map<Node, Node>();
  const aliases: Node[] = [];
  walk(document.contents, (node) => {
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      if (target !== undefined) targets.set(node, target);
      aliases.push(node);
    } else if (node.anchor !== undefined) anchors.set(node.anchor, node);
  });
  if (aliases.length === 0) return undefined;
  const sizes = new Map<Node, number>();
  const sizeOf = (root: Node): number => {
    // Post-order over an explicit stack; an alias inside its own anchor counts as one node.
    const stack: Array<{ node: Node; expanded: boolean }> = [{ node: root, expanded: false }];
    const open = new Set<Node>();
    while (stack.length > 0) {
      const entry = stack.pop() as { node: Node; expanded: boolean };
      const { node } = entry;
      if (sizes.has(node)) continue;
      const children = childrenOf(node, targets);
      if (!entry.expanded && open.has(node)) continue;
      if (!entry.expanded) {
        open.add(node);
        stack.push({ node, expanded: true });
        for (const child of children)
          if (!sizes.has(child) && !open.has(child)) stack.push({ node: child, expanded: false });
        continue;
      }
      let size = 1;
      for (const child of children) size += sizes.get(child) ?? 1;
      sizes.set(node, Math.min(size, Number.MAX_SAFE_INTEGER));
    }
    return sizes.get(root) ?? 1;
  };
  let copied = 0;
  for (const alias of aliases) {
    const target = targets.get(alias);
    if (target === undefined) continue;
    copied += sizeOf(target);
    if (copied > maxAliasNodes) {
      const source = (alias as Node & { source: string }).source;
      return {
        message: `YAML: aliases expand to more than ${maxAliasNodes} nodes (maxAliasNodes), here at *${source}`,
        ...(alias.range === undefined || alias.range === null ? {} : { offset: alias.range[0] }),
      };
    }
  }
  return undefined;
}

function childrenOf(node: Node, targets: ReadonlyMap<Node, Node>): Node[] {
  if (isAlias(node)) {
    const target = targets.get(node);
    return target === undefined ? [] : [target];
  }
  if (!isCollection(node)) return [];
  const out: Node[] = [];
  for (const item of node.items) {
    if (isPair(item)) {
      if (item.key !== null && typeof item.key === 'object') out.push(item.key as Node);
      if (item.value !== null && typeof item.value === 'object') out.push(item.value as Node);
    } else if (item !== null && typeof item === 'object') out.push(item as Node);
  }
  return out;
}

/** Visits every node in document order, without recursion. */
function walk(root: unknown, visit: (node: Node) => void): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (isPair(node)) {
      stack.push(node.value, node.key);
      continue;
    }
    if (!isScalar(node) && !isAlias(node) && !isCollection(node)) continue;
    visit(node);
    if (isCollection(node))
      for (let index = node.items.length - 1; index >= 0; index--) stack.push(node.items[index]);
  }
}

/** Offsets of mapping keys that repeat an earlier scalar key of the same mapping. */
function duplicateKeys(document: Document): number[] {
  const offsets: number[] = [];
  walk(document.contents, (node) => {
    if (!isMap(node)) return;
    const seen = new Set<unknown>();
    for (const pair of node.items) {
      if (!isScalar(pair.key)) continue;
      if (seen.has(pair.key.value)) offsets.push(pair.key.range?.[0] ?? 0);
      else seen.add(pair.key.value);
    }
  });
  return offsets;
}

function firstAlias(document: Document): Node | undefined {
  let found: Node | undefined;
  walk(document.contents, (node) => {
    if (found === undefined && isAlias(node)) found = node;
  });
  return found;
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
