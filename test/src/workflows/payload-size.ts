// Workflow code: runs in the Temporal sandbox, imports nothing Node-only.

/** Returns the length and a checksum-like fingerprint of a (possibly huge) input. */
export async function payloadSizeWorkflow(
  text: string,
): Promise<{ length: number; head: string; tail: string }> {
  return { length: text.length, head: text.slice(0, 8), tail: text.slice(-8) };
}
