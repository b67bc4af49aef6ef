import { WharfOrchestratorError, type WharfOrchestratorErrorCode } from '@wharf/swarm';

/** The codes of {@link ModelError}: what is wrong with a model id or a model's setup. */
export type ModelErrorCode = Extract<
  WharfOrchestratorErrorCode,
  | 'UNKNOWN_PROVIDER'
  | 'INVALID_MODEL_ID'
  | 'MISSING_MODEL_KEY'
  | 'INVALID_SCRIPTED_MODEL'
  | 'INVALID_MODEL_OVERRIDE'
>;

const MODEL_CODES: ReadonlySet<string> = new Set<ModelErrorCode>([
  'UNKNOWN_PROVIDER',
  'INVALID_MODEL_ID',
  'MISSING_MODEL_KEY',
  'INVALID_SCRIPTED_MODEL',
  'INVALID_MODEL_OVERRIDE',
]);

/** One problem in a scripted model's file: where it is and what is wrong. */
export interface ModelFileIssue {
  /** Field path, e.g. `replies[2].tool_calls[0].tool`; empty for the document itself. */
  path: string;
  message: string;
  /** 1-based line and column in the file, when known. */
  line?: number;
  column?: number;
}

/** Options of {@link ModelError}. */
export interface ModelErrorOptions {
  /** The model id the error is about, when there is one. */
  modelId?: string | undefined;
  /** The environment variable or option to set or fix (`OPENAI_API_KEY`, `WHARF_MODEL`, `--model`). */
  variable?: string | undefined;
  /** A scripted model's file, when the error is about it. */
  file?: string | undefined;
  issues?: readonly ModelFileIssue[] | undefined;
  cause?: unknown;
}

/**
 * A model that cannot be used as written: an unknown provider (`UNKNOWN_PROVIDER`), a malformed
 * id (`INVALID_MODEL_ID`), a provider key missing from the environment (`MISSING_MODEL_KEY`,
 * `variable` names it), a scripted model's file that cannot be read (`INVALID_SCRIPTED_MODEL`,
 * with its `issues` at line:column), or a bad `--model`/`WHARF_MODEL` entry
 * (`INVALID_MODEL_OVERRIDE`). A retry cannot mend any of them: activities fail without retrying.
 *
 * @example
 * ```ts
 * try {
 *   models.resolve('anthropic:claude-sonnet-4-5');
 * } catch (error) {
 *   if (ModelError.isInstance(error) && error.code === 'MISSING_MODEL_KEY') console.error(`set ${error.variable}`);
 * }
 * ```
 */
export class ModelError extends WharfOrchestratorError {
  declare readonly code: ModelErrorCode;
  readonly modelId: string | undefined;
  readonly variable: string | undefined;
  readonly file: string | undefined;
  readonly issues: readonly ModelFileIssue[];

  constructor(code: ModelErrorCode, message: string, options: ModelErrorOptions = {}) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ModelError';
    this.modelId = options.modelId;
    this.variable = options.variable;
    this.file = options.file;
    this.issues = options.issues ?? [];
  }

  /** True for a ModelError from any realm. */
  static override isInstance(value: unknown): value is ModelError {
    return WharfOrchestratorError.isInstance(value) && MODEL_CODES.has(value.code) && 'issues' in value;
  }
}
