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

describe('bwrapArguments of programs', () => {
  const at = (args: string[], flag: string, path: string) =>
    args.findIndex((arg, index) => arg === flag && args[index + 1] === path);
  const bound = (args: string[]) =>
    args.flatMap((arg, index) => (arg === '--ro-bind' ? [args[index + 1] as string] : []));

  it('binds an install under /tmp back read-only after the private /tmp, and nothing beside it', () => {
    const args = bwrapArguments(
      {
        writable: ['/tmp/wharf-checkout/.sandbox/work'],
        hidden: ['/tmp/wharf-checkout/.sandbox/work/.wharf'],
        programs: ['/tmp/wharf-checkout', '/run/user/1000/node/bin'],
      },
      '/tmp/wharf-checkout/.sandbox/work',
    );
    const tmpfs = at(args, '--tmpfs', '/tmp');
    expect(tmpfs).toBeGreaterThan(0);
    expect(at(args, '--ro-bind', '/tmp/wharf-checkout')).toBeGreaterThan(tmpfs);
    expect(at(args, '--ro-bind', '/run/user/1000/node/bin')).toBeGreaterThan(at(args, '--tmpfs', '/run'));
    // Its work directory inside is writable, and the data directory inside that stays hidden.
    expect(at(args, '--bind', '/tmp/wharf-checkout/.sandbox/work')).toBeGreaterThan(
      at(args, '--ro-bind', '/tmp/wharf-checkout'),
    );
    expect(at(args, '--tmpfs', '/tmp/wharf-checkout/.sandbox/work/.wharf')).toBeGreaterThan(
      at(args, '--bind', '/tmp/wharf-checkout/.sandbox/work'),
    );
    // A sibling under /tmp is not bound, nor /tmp itself.
    expect(args.join(' ')).not.toContain('/tmp/wharf-other');
    expect(bound(args)).toEqual(['/', '/tmp/wharf-checkout', '/run/user/1000/node/bin']);
  });

  it('binds programs the read-only root shows already, /tmp itself, or any under root: minimal, not at all', () => {
    expect(bound(bwrapArguments({ programs: ['/opt/wharf', '/usr/local/bin'] }))).toEqual(['/']);
    expect(bound(bwrapArguments({ programs: ['/tmp', '/run/', '/tmpfoo/wharf'] }))).toEqual(['/']);
    expect(bound(bwrapArguments({ root: 'minimal', programs: ['/tmp/wharf-checkout'] }))).toEqual([]);
  });

  it("lets a task's writable directory at the install's own path win over the read-only bind", () => {
    const args = bwrapArguments({ writable: ['/tmp/wharf-checkout'], programs: ['/tmp/wharf-checkout'] });
    expect(at(args, '--bind', '/tmp/wharf-checkout')).toBeGreaterThan(
      at(args, '--ro-bind', '/tmp/wharf-checkout'),
    );
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
