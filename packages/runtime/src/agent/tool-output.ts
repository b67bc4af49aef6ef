/** Marks a tool result that says how the model sees it and where its full output is. */
const marker = Symbol.for('@wharf/orchestrator/tool-output');

/**
 * What a Wharf built-in tool returns: the text the model sees (already cut under the task's
 * limits, with exact markers) and the full output, as text or as a file in the worker's work
 * directory (handed to the evidence store).
 */
export interface ToolOutput {
  text: string;
  full: string | { filePath: string; bytes: number };
  /** A process's exit code, for the evidence index. */
  exitCode?: number | null;
  /** The tool failed (the model sees its text as an error). */
  failed?: boolean;
}

/**
 * Wraps a built-in tool's result so the recording layer keeps its full output apart from
 * the text shown to the model.
 *
 * @example
 * ```ts
 * return toolOutput({ text: capture.stdout.text, full: { filePath, bytes } });
 * ```
 */
export function toolOutput(output: ToolOutput): ToolOutput {
  return Object.assign({ ...output }, { [marker]: true });
}

/** True for a value built by {@link toolOutput}, whatever realm created it. */
export function isToolOutput(value: unknown): value is ToolOutput {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
}
