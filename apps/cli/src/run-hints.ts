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

/**
 * The command that answers one task's approval gate of a run, ready to copy.
 *
 * @example
 * ```ts
 * approveCommandFor('release-1', '127.0.0.1:7233')('deploy'); // 'wharf approve release-1 deploy'
 * ```
 */
export function approveCommandFor(workflowId: string, address: string): (task: string) => string {
  return (task) => `wharf approve ${workflowId} ${task}${addressFlag(address)}`;
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
