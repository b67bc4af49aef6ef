import { readFileSync } from 'node:fs';

/**
 * What the worker image (the root `Dockerfile`) runs and installs in its last stage: the
 * `ENTRYPOINT` and `CMD` in exec form, and the Debian packages its `apt-get install` lines name.
 * No Docker engine runs in CI, so tests read the file instead of building it.
 *
 * @example
 * ```ts
 * const { entrypoint, cmd } = workerImage();
 * spawn(entrypoint[0], [...entrypoint.slice(1), ...cmd]);
 * ```
 */
export function workerImage(): { entrypoint: string[]; cmd: string[]; packages: string[] } {
  const text = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
  const stages = text.split(/^FROM /m);
  const last = stages.at(-1) ?? '';
  const instruction = (name: string): string[] => {
    const line = last.match(new RegExp(`^${name}\\s+(\\[.*\\])\\s*$`, 'm'))?.[1];
    return line === undefined ? [] : (JSON.parse(line) as string[]);
  };
  const packages = [...last.matchAll(/apt-get install ([^&\n]+)/g)].flatMap((match) =>
    (match[1] ?? '').split(/\s+/).filter((word) => word !== '' && !word.startsWith('-')),
  );
  return { entrypoint: instruction('ENTRYPOINT'), cmd: instruction('CMD'), packages };
}
