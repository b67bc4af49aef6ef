import { describe, expect, it } from 'vitest';
import { bwrapArguments, limitArguments } from './sandbox-policy.js';

describe('bwrapArguments', () => {
  it('unshares the network unless allowed, and binds the root read-only', () => {
    const args = bwrapArguments({});
    expect(args).toContain('--unshare-net');
    expect(args).toContain('--unshare-pid');
    expect(args.join(' ')).toContain('--ro-bind / /');
    expect(bwrapArguments({ network: 'allow' })).not.toContain('--unshare-net');
    // systemd-resolved's resolv.conf lives under /run, which the sandbox replaces.
    expect(bwrapArguments({ network: 'allow' }).join(' ')).toContain(
      '--ro-bind-try /run/systemd/resolve /run/systemd/resolve',
    );
    expect(bwrapArguments({}).join(' ')).not.toContain('/run/systemd/resolve');
  });

  it('mounts parents first, so a data directory inside the work directory stays hidden', () => {
    const args = bwrapArguments(
      { writable: ['/w'], hidden: ['/w/.wharf'], readable: ['/w/.wharf/work/a/context.txt'] },
      '/w',
    );
    const at = (flag: string, path: string) =>
      args.findIndex((arg, index) => arg === flag && args[index + 1] === path);
    expect(at('--bind', '/w')).toBeLessThan(at('--tmpfs', '/w/.wharf'));
    expect(at('--tmpfs', '/w/.wharf')).toBeLessThan(at('--ro-bind', '/w/.wharf/work/a/context.txt'));
    expect(args.slice(-2)).toEqual(['--chdir', '/w']);
  });

  it('binds only the system directories under root: minimal', () => {
    const args = bwrapArguments({ root: 'minimal' });
    expect(args.join(' ')).not.toContain('--ro-bind / /');
    expect(args.join(' ')).toContain('--ro-bind-try /usr /usr');
  });
});

describe('bwrapArguments of hidden files', () => {
  it('covers a hidden file with an empty one', () => {
    const args = bwrapArguments({ hidden: ['/home/u/.netrc', '/home/u/.aws'] }, undefined, (path) =>
      path.endsWith('.netrc'),
    );
    expect(args.join(' ')).toContain('--ro-bind /dev/null /home/u/.netrc');
    expect(args.join(' ')).toContain('--tmpfs /home/u/.aws');
  });
});

describe('limitArguments', () => {
  it('turns limits into prlimit flags', () => {
    expect(limitArguments({})).toEqual([]);
    expect(limitArguments({ maxMemoryBytes: 1024, maxProcesses: 64, maxCpuSeconds: 5 })).toEqual([
      '--data=1024',
      '--nproc=64',
      '--cpu=5',
    ]);
  });
});
