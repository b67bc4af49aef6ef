import { realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { installRootOf, wharfInstallPaths } from './wharf-install.js';

/** This checkout: the directory holding the `node_modules` its packages import from. */
const checkout = realpathSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../../..'));

describe('installRootOf', () => {
  it('is the directory holding the node_modules a module was installed into', () => {
    expect(installRootOf('/tmp/fresh/node_modules/.pnpm/zod@4.1.0/node_modules/zod/index.js')).toBe(
      '/tmp/fresh',
    );
    expect(installRootOf('/srv/app/node_modules/@wharf/runtime/dist/index.js')).toBe('/srv/app');
    expect(installRootOf('/tmp/fresh/packages/runtime/dist/index.js')).toBeUndefined();
  });

  it('is the node_modules directory alone where the project is /tmp, /run or / itself', () => {
    expect(installRootOf('/tmp/node_modules/zod/index.js')).toBe('/tmp/node_modules');
    expect(installRootOf('/run/node_modules/zod/index.js')).toBe('/run/node_modules');
    expect(installRootOf('/node_modules/zod/index.js')).toBe('/node_modules');
  });
});

describe('wharfInstallPaths', () => {
  it("names this checkout and the node executable's directory, none inside another", () => {
    const paths = wharfInstallPaths();
    expect(paths).toContain(checkout);
    const node = dirname(realpathSync(process.execPath));
    expect(paths.some((path) => node === path || node.startsWith(`${path}/`))).toBe(true);
    for (const path of paths) {
      expect(paths.filter((other) => other !== path && path.startsWith(`${other}/`))).toEqual([]);
    }
  });
});
