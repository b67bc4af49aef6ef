/**
 * A logger for `bundleWorkflowCode` that keeps only warnings and errors: a workflow bundle built
 * for tests prints nothing unless something is wrong.
 *
 * @example
 * ```ts
 * await bundleWorkflowCode({ workflowsPath, logger: quietLogger });
 * ```
 */
export const quietLogger = {
  log() {},
  trace() {},
  debug() {},
  info() {},
  warn(message: string) {
    console.warn(message);
  },
  error(message: string) {
    console.error(message);
  },
};
