import { emit } from '@wharf/output-store/client';
import { CliError } from '../cli-error.js';
import { type CliIo, printJson } from '../output.js';

/**
 * `cmd | wharf emit`: streams stdin to the intake server with the spawn's injected URL and
 * token (`WHARF_OUTPUT_URL`, `WHARF_OUTPUT_TOKEN`) and prints the new out id.
 */
export async function emitCommand(
  options: { name?: string; contentType?: string; label: string[]; json: boolean },
  io: CliIo,
  input: AsyncIterable<Uint8Array> = process.stdin,
): Promise<string> {
  const labels: Record<string, string> = {};
  for (const pair of options.label) {
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new CliError('USAGE', `--label expects key=value, got "${pair}"`);
    labels[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  try {
    const ref = await emit(input, {
      ...(options.name === undefined ? {} : { name: options.name }),
      ...(options.contentType === undefined ? {} : { contentType: options.contentType }),
      labels,
    });
    if (options.json) printJson(io, ref);
    else io.out(ref.outId);
    return ref.outId;
  } catch (error) {
    throw new CliError('USAGE', `wharf emit: ${(error as Error).message}`, { cause: error });
  }
}
