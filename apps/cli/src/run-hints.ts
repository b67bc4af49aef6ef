/**
 * ` --address <address>` when the address is not the one `status`, `approve` and `input` use by
 * default (`TEMPORAL_ADDRESS`, else `127.0.0.1:7233`); empty otherwise.
 *
 * @example
 * ```ts
 * `wharf status ${workflowId}${addressFlag(embedded.address)}`;
 * ```
 */
export function addressFlag(address: string): string {
  return address === (process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233') ? '' : ` --address ${address}`;
}

/** ` --data-dir <dir>` when the data directory is not the default (`.wharf`); empty otherwise. */
export function dataDirFlag(dataDir: string): string {
  return dataDir === '.wharf' ? '' : ` --data-dir ${dataDir}`;
}

/**
 * The command that gives a run a worker again (`wharf resume`). A dev server the command started
 * itself is started again by `wharf resume` from the data directory, wherever it listens: then
 * no address is named.
 *
 * @example
 * ```ts
 * resumeCommand('nightly-1', { address: 'temporal:7233', dataDir: 'runs/a', startedServer: false });
 * // 'wharf resume nightly-1 --data-dir runs/a --address temporal:7233'
 * ```
 */
export function resumeCommand(
  workflowId: string,
  run: { address: string; dataDir: string; startedServer: boolean },
): string {
  return `wharf resume ${workflowId}${dataDirFlag(run.dataDir)}${run.startedServer ? '' : addressFlag(run.address)}`;
}

/**
 * The command that answers one task's approval gate of a run, ready to copy.
 *
 * @example
 * ```ts
 * approveCommandFor('release-1', '127.0.0.1:7233')('deploy'); // 'wharf approve release-1 deploy'
 * ```
 */
export function approveCommandFor(
  workflowId: string,
  address: string,
): (task: string, callId?: string) => string {
  return (task, callId) =>
    `wharf approve ${workflowId} ${task}${callId === undefined ? '' : ` --call ${callId}`}${addressFlag(address)}`;
}

/**
 * What `wharf run` says when it cannot link the run in the Web UI: a Temporal server does not
 * tell its clients where its UI is, so the user names it.
 *
 * @example
 * ```ts
 * if (link === undefined) io.err(webUiNote(embedded.address));
 * ```
 */
export function webUiNote(address: string): string {
  return `wharf: no Web UI link: the Temporal server at ${address} does not say where its Web UI is; give it with --ui-url <url> (or WHARF_UI_URL)`;
}
