import type { SwarmDefinition } from '../contracts/swarm-schema.js';
import { locateIssues, type ParseSwarmOptions, parseSwarm } from './parse-swarm.js';
import { nameHint } from './suggest-names.js';
import { SwarmDefinitionError, type SwarmIssue } from './swarm-definition-error.js';
import { missingSwarmInputs, swarmInputNames } from './swarm-input-names.js';

/** Swarms a `swarm:` task may nest below the file given, unless `maxDepth` says otherwise. */
export const DEFAULT_SWARM_DEPTH = 4;

/** A swarm file as its reader gives it. */
export interface SwarmFile {
  /**
   * The file's name in messages, one per file: the same file reached by two paths has the same
   * source (a cycle is found by it).
   */
  source: string;
  text: string;
}

/** Options of {@link loadSwarmTree}. */
export interface LoadSwarmTreeOptions extends Omit<ParseSwarmOptions, 'source'> {
  /**
   * Reads the file a `swarm:` task names (`path` as written, relative to the file `from`); a
   * file that cannot be read throws (its message is the issue's).
   */
  read: (path: string, from: string) => Promise<SwarmFile>;
  /** Most swarms nested below the file given (default {@link DEFAULT_SWARM_DEPTH}). */
  maxDepth?: number;
}

/**
 * Reads a swarm file and every swarm file its `swarm:` tasks name, in turn, and attaches each
 * child's read definition to its task (`swarm_definition`), so the workflow receives the whole
 * tree and never reads a file. Each file is checked as {@link parseSwarm} checks one, and each
 * `swarm:` task against its file: a file that cannot be read, a cycle of files (`a.yaml →
 * b.yaml → a.yaml`), nesting deeper than `maxDepth`, an input the child does not read
 * (`†input.<name>`: a swarm declares no inputs, what it reads is what it takes) and an input it
 * cannot run without that the task does not pass. The first file with problems throws a
 * {@link SwarmDefinitionError} naming that file, each issue at its line and column.
 *
 * @example
 * ```ts
 * const definition = await loadSwarmTree(
 *   { source: 'release.yaml', text: await readFile('release.yaml', 'utf8') },
 *   { read: async (path, from) => readSwarmFile(resolve(dirname(from), path)) },
 * );
 * ```
 */
export async function loadSwarmTree(
  root: SwarmFile,
  options: LoadSwarmTreeOptions,
): Promise<SwarmDefinition> {
  const { read, maxDepth = DEFAULT_SWARM_DEPTH, ...parseOptions } = options;
  const load = async (file: SwarmFile, chain: readonly string[]): Promise<SwarmDefinition> => {
    const definition = parseSwarm(file.text, { ...parseOptions, source: file.source });
    const issues: SwarmIssue[] = [];
    const tasks: SwarmDefinition['tasks'] = { ...definition.tasks };
    for (const [name, task] of Object.entries(definition.tasks)) {
      if (task.swarm === undefined) continue;
      const path = `tasks.${name}.swarm`;
      if (chain.length > maxDepth) {
        issues.push({
          path,
          message: `swarms nest more than ${maxDepth} deep (maxDepth): ${[...chain, task.swarm].join(' → ')}`,
        });
        continue;
      }
      let child: SwarmFile;
      try {
        child = await read(task.swarm, file.source);
      } catch (error) {
        issues.push({ path, message: `cannot read ${task.swarm}: ${(error as Error).message}` });
        continue;
      }
      const seen = chain.indexOf(child.source);
      if (seen >= 0) {
        issues.push({
          path,
          message: `swarm files form a cycle: ${[...chain.slice(seen), child.source].join(' → ')}`,
        });
        continue;
      }
      const loaded = await load(child, [...chain, child.source]);
      const reads = swarmInputNames(loaded);
      const passed = [...Object.keys(task.inputs), ...Object.keys(task.swarm_inputs ?? {})];
      const hint = nameHint([...reads]);
      for (const input of passed) {
        if (reads.has(input)) continue;
        issues.push({
          path: `tasks.${name}.inputs.${input}`,
          message: `${task.swarm} reads no †input.${input}${hint(input)}`,
        });
      }
      for (const missing of missingSwarmInputs(loaded, passed)) {
        const names = missing.names.map((input) => `†input.${input}`);
        const needs =
          names.length === 1
            ? names[0]
            : `${missing.need === 'any' ? 'one of' : 'each of'} ${names.join(', ')}`;
        issues.push({
          path: `tasks.${name}.inputs`,
          message: `${task.swarm} needs ${needs} (its ${missing.reader} reads it): pass it in \`inputs\``,
        });
      }
      tasks[name] = { ...task, swarm_definition: loaded };
    }
    if (issues.length > 0) throw new SwarmDefinitionError(locateIssues(file.text, issues), file.source);
    return { ...definition, tasks };
  };
  return load(root, [root.source]);
}

/**
 * The child definition a `swarm:` task runs (attached by {@link loadSwarmTree}), if any.
 *
 * @example
 * ```ts
 * childSwarm(definition.tasks.review)?.name; // 'review'
 * ```
 */
export function childSwarm(task: SwarmDefinition['tasks'][string]): SwarmDefinition | undefined {
  return task.swarm_definition as SwarmDefinition | undefined;
}
