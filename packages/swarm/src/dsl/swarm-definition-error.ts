import { WharfOrchestratorError } from '../orchestrator-error.js';

/** One problem found in a swarm definition. */
export interface SwarmIssue {
  /** Field path, e.g. `tasks.build.depends_on[0]`; empty for the document itself. */
  path: string;
  /** What is wrong. */
  message: string;
  /** 1-based line in the YAML source, when known. */
  line?: number;
  /** 1-based column in the YAML source, when known. */
  column?: number;
}

/** The message lists at most this many issues; `issues` keeps them all. */
const ISSUES_SHOWN = 50;

/** Formats an issue as `line:column path: message`. */
export function formatSwarmIssue(issue: SwarmIssue): string {
  const where = issue.line === undefined ? '' : `${issue.line}:${issue.column ?? 1} `;
  const path = issue.path === '' ? '' : `${issue.path}: `;
  return `${where}${path}${issue.message}`;
}

/**
 * A swarm definition that cannot run: YAML syntax errors, schema violations and graph
 * problems (unknown dependencies, cycles, references to outputs that cannot exist yet).
 * Every issue names the field path and, for YAML input, the line and column. The message
 * lists the first 50 issues and then "… and K more problems"; `issues` holds every one.
 *
 * @example
 * ```ts
 * try {
 *   parseSwarm(text, { source: 'swarm.yaml' });
 * } catch (error) {
 *   if (SwarmDefinitionError.isInstance(error)) for (const issue of error.issues) console.error(issue);
 * }
 * ```
 */
export class SwarmDefinitionError extends WharfOrchestratorError {
  readonly issues: readonly SwarmIssue[];
  readonly source: string | undefined;

  constructor(issues: readonly SwarmIssue[], source?: string) {
    const head = `Invalid swarm definition${source === undefined ? '' : ` in ${source}`} (${issues.length} ${issues.length === 1 ? 'problem' : 'problems'}):`;
    const shown = issues.slice(0, ISSUES_SHOWN).map((issue) => `  ${formatSwarmIssue(issue)}`);
    if (issues.length > ISSUES_SHOWN) shown.push(`  … and ${issues.length - ISSUES_SHOWN} more problems`);
    super('INVALID_DEFINITION', [head, ...shown].join('\n'));
    this.name = 'SwarmDefinitionError';
    this.issues = issues;
    this.source = source;
  }

  /** True for a SwarmDefinitionError from any realm. */
  static override isInstance(value: unknown): value is SwarmDefinitionError {
    return (
      WharfOrchestratorError.isInstance(value) && value.code === 'INVALID_DEFINITION' && 'issues' in value
    );
  }
}
