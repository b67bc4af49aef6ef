import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { formatPath, YamlLocator } from '@wharf/swarm';
import { LineCounter, parseDocument } from 'yaml';
import { ModelError, type ModelFileIssue } from './model-error.js';
import { scriptedModelFileSchema } from './schemas.js';
import { scriptedModel } from './scripted-model.js';

/** Largest scripted model file read (a script of replies, not a data set). */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/**
 * The model of a `scripted:<file>` id: reads the file (YAML or JSON; relative to `cwd`, default
 * the process's working directory), checks it, and returns {@link scriptedModel} over its
 * `replies`. A file that cannot be read, or does not parse, or breaks the format is an
 * `INVALID_SCRIPTED_MODEL` {@link ModelError} whose message and `issues` give each problem's
 * line:column and field (`3:7 replies[0].tool_calls[0].tool: must name a tool`).
 *
 * ```yaml
 * replies:
 *   - tool_calls: [{ tool: shell, input: { command: "git ls-files | wc -l" } }]
 *   - text: "The repository tracks 212 files."
 * ```
 *
 * @example
 * ```ts
 * const model = loadScriptedModel('examples/models/reviewer.yaml');
 * ```
 */
export function loadScriptedModel(file: string, options: { cwd?: string } = {}): LanguageModelV4 {
  const path = resolve(options.cwd ?? process.cwd(), file);
  const fail = (issues: ModelFileIssue[], cause?: unknown) => {
    const lines = issues.map(
      (issue) =>
        `  ${issue.line === undefined ? '' : `${issue.line}:${issue.column ?? 1} `}${issue.path === '' ? '' : `${issue.path}: `}${issue.message}`,
    );
    return new ModelError(
      'INVALID_SCRIPTED_MODEL',
      `scripted model file ${file} (${path}) cannot be used:\n${lines.join('\n')}`,
      { modelId: `scripted:${file}`, file: path, issues, cause },
    );
  };
  let text: string;
  try {
    const buffer = readFileSync(path);
    if (buffer.length > MAX_FILE_BYTES) {
      throw fail([{ path: '', message: `is ${buffer.length} bytes; at most ${MAX_FILE_BYTES} are read` }]);
    }
    text = buffer.toString('utf8');
  } catch (error) {
    if (ModelError.isInstance(error)) throw error;
    throw fail([{ path: '', message: `cannot be read: ${(error as Error).message}` }], error);
  }
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  if (document.errors.length > 0) {
    throw fail(
      document.errors.map((error) => {
        const position = lineCounter.linePos(error.pos[0]);
        return {
          path: '',
          message: `YAML: ${error.message.split('\n')[0]}`,
          line: position.line,
          column: position.col,
        };
      }),
    );
  }
  const parsed = scriptedModelFileSchema.safeParse(document.toJS() ?? {});
  if (!parsed.success) {
    const locator = new YamlLocator(document.contents, lineCounter);
    throw fail(
      parsed.error.issues.map((issue) =>
        locator.locate({ path: formatPath(issue.path), message: issue.message }, issue.path),
      ),
    );
  }
  return scriptedModel(
    parsed.data.replies.map((reply) => ({
      ...(reply.text === undefined ? {} : { text: reply.text }),
      toolCalls: (reply.tool_calls ?? []).map((call) => ({ toolName: call.tool, input: call.input })),
      ...(reply.usage === undefined
        ? {}
        : { usage: { inputTokens: reply.usage.input_tokens, outputTokens: reply.usage.output_tokens } }),
    })),
    { name: file },
  );
}
