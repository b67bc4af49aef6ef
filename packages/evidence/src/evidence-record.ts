/**
 * The label every output written by {@link OutputStoreArtifactStore} carries: the kind of
 * evidence it holds (`metadata`, `result`, `thread` or `tool-output`).
 */
export const EVIDENCE_KIND_LABEL = 'wharf.evidence.kind';

/**
 * Whether an output record holds a worker's evidence rather than an output a task EMITted.
 * When the evidence shares the output store (a configured `WHARF_STORE`), listings use this to
 * keep the two apart.
 *
 * @example
 * ```ts
 * const page = await store.list({ runId });
 * const outputs = page.records.filter((record) => !isEvidenceRecord(record));
 * ```
 */
export function isEvidenceRecord(record: { readonly labels: Readonly<Record<string, string>> }): boolean {
  return Object.hasOwn(record.labels, EVIDENCE_KIND_LABEL);
}
