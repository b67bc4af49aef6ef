import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import {
  defaultSwarmSizeLimits,
  loadSwarmTree,
  type SwarmDefinition,
  SwarmDefinitionError,
  SwarmDefinitionTooLargeError,
} from '@wharf/orchestrator';
import { CliError } from './cli-error.js';

/**
 * Reads and validates a swarm file, and the swarm files its `swarm:` tasks name (relative to the
 * file naming them, at most `maxDepth` deep: `--max-swarm-depth`, default 4), each child's read
 * definition attached to its task (see `loadSwarmTree`); a bad definition becomes a `CliError`
 * whose message names the file and lists every problem with its line, column and field path
 * (a file that cannot be read, a cycle of files, nesting too deep, inputs the child does not
 * read or needs); so does one over the size limits. Anything but a regular file (a FIFO, a
 * directory, a device) is refused at once, without waiting on it. `tools` names the tools
 * registered with the workers (`--tools`, `WHARF_TOOLS`); without it, names that are not
 * Wharf's own are left to the worker's check.
 *
 * @example
 * ```ts
 * const definition = await loadSwarm('examples/repo-health.yaml', { tools: ['lookup'] });
 * ```
 */
export async function loadSwarm(
  path: string,
  options: { tools?: readonly string[] | undefined; maxDepth?: number | undefined } = {},
): Promise<SwarmDefinition> {
  const text = await readSwarmFile(path);
  const file = (child: string, from = '.') => relative(process.cwd(), resolve(dirname(from), child)) || child;
  try {
    return await loadSwarmTree(
      { source: file(path), text },
      {
        ...(options.tools === undefined ? {} : { tools: options.tools }),
        ...(options.maxDepth === undefined ? {} : { maxDepth: options.maxDepth }),
        read: async (child, from) => {
          const source = file(child, from);
          try {
            return { source, text: await readSwarmFile(source) };
          } catch (error) {
            // The loader says which file could not be read, and where it is named.
            throw CliError.isInstance(error) && error.cause instanceof Error ? error.cause : error;
          }
        },
      },
    );
  } catch (error) {
    if (SwarmDefinitionError.isInstance(error) || SwarmDefinitionTooLargeError.isInstance(error)) {
      throw new CliError('INVALID_DEFINITION', error.message, { cause: error });
    }
    throw error;
  }
}

/**
 * The text of a regular file. It is opened non-blocking (opening a FIFO would otherwise wait
 * for a writer) and checked on the open handle, so what is read is what was checked; a file
 * over the size limit is refused before it is read.
 */
async function readSwarmFile(path: string): Promise<string> {
  const cannotRead = (error: unknown) =>
    new CliError('NOT_FOUND', `cannot read ${path}: ${(error as Error).message}`, { cause: error });
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw cannotRead(error);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      throw new CliError(
        'USAGE',
        `${path} is not a regular file (${fileKind(stats)}): give a swarm YAML file`,
      );
    }
    if (stats.size > defaultSwarmSizeLimits.maxBytes) {
      const error = new SwarmDefinitionTooLargeError(
        'maxBytes',
        stats.size,
        defaultSwarmSizeLimits.maxBytes,
        path,
      );
      throw new CliError('INVALID_DEFINITION', error.message, { cause: error });
    }
    return await handle.readFile('utf8');
  } catch (error) {
    throw CliError.isInstance(error) ? error : cannotRead(error);
  } finally {
    await handle.close();
  }
}

function fileKind(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a file';
}
