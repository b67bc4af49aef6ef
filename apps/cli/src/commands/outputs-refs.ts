import { entryOutIds, isManifestRecord, manifestEntries } from '@wharf/output-store';
import { CliError } from '../cli-error.js';
import { openData } from '../open-data.js';
import type { CliIo } from '../output.js';
import { outputReadCliError } from '../output-read-error.js';

/**
 * `wharf outputs refs <outId> [--records]`: the out ids a stored list names (a loop's manifest:
 * every instance's outputs, instance order), one per line, read chunk by chunk; with `records`,
 * its entries as JSON lines (a loop's: instance, status, out ids, bytes, exit code). A plain
 * output prints its own id. Only parts Wharf wrote for the list's owner are followed.
 *
 * @example
 * ```ts
 * await outputsRefs('out_…', { dataDir: '.wharf', records: false }, io);
 * ```
 */
export async function outputsRefs(
  outId: string,
  options: { dataDir: string; records: boolean },
  io: CliIo,
): Promise<void> {
  const data = await openData(options.dataDir);
  try {
    const record = await data.store.stat({ outId });
    if (!isManifestRecord(record)) {
      if (options.records)
        throw new CliError('USAGE', `${outId} is not a stored list (a manifest): it has no records`);
      io.out(outId);
      return;
    }
    // An operator's read: any run of the list's owner, never another owner's parts.
    for await (const entry of manifestEntries(
      data.store,
      { outId },
      { scope: { ownerId: record.producer.ownerId } },
    )) {
      if (options.records) io.out(JSON.stringify(entry));
      else for (const id of entryOutIds(entry)) io.out(id);
    }
  } catch (error) {
    throw outputReadCliError(error) ?? error;
  } finally {
    await data.close();
  }
}
