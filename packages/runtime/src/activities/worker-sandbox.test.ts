import { homedir } from 'node:os';
import { join } from 'node:path';
import { Sandbox } from '@wharf/stdio-limits';
import { WharfOrchestratorError } from '@wharf/swarm';
import { describe, expect, it } from 'vitest';
import { wharfInstallPaths } from './wharf-install.js';
import { HOME_CREDENTIALS, SANDBOX_INTAKE_SOCKET, WorkerSandbox } from './worker-sandbox.js';

const detected = Sandbox.detect();

describe('WorkerSandbox', () => {
  it('says why there is none, and refuses to start without one when required', () => {
    const none = WorkerSandbox.create({ detection: { reason: 'bubblewrap is not installed' } });
    expect(none.status).toEqual({ state: 'unavailable', reason: 'bubblewrap is not installed' });
    expect(none.describe()).toBe('sandbox unavailable: bubblewrap is not installed');
    expect(none.captureOption({ network: 'allow' }, { workdir: '/w' })).toEqual({ env: {} });
    expect(() => WorkerSandbox.create({ mode: 'required', detection: { reason: 'no userns' } })).toThrow(
      /WHARF_SANDBOX=required.*no userns/,
    );
    expect(WorkerSandbox.create({ mode: 'off' }).status.state).toBe('off');
  });

  it('reads its options from the environment', () => {
    expect(
      WorkerSandbox.optionsFromEnv({
        WHARF_SANDBOX: 'required',
        WHARF_SANDBOX_NETWORK: 'none',
        WHARF_SANDBOX_MAX_MEMORY_BYTES: '1073741824',
        WHARF_SANDBOX_HIDE: '/srv/a:/srv/b',
      }),
    ).toEqual({
      mode: 'required',
      network: 'none',
      maxMemoryBytes: 1073741824,
      hidden: ['/srv/a', '/srv/b'],
    });
    expect(() => WorkerSandbox.optionsFromEnv({ WHARF_SANDBOX: 'maybe' })).toThrow(/WHARF_SANDBOX/);
  });

  it.skipIf(detected.sandbox === undefined)(
    "builds a task's policy under the worker's ceiling, hiding the other running work directories",
    async () => {
      const worker = WorkerSandbox.create({
        detection: detected,
        network: 'none',
        maxMemoryBytes: 1024,
        hidden: ['/data'],
        intakeSocket: '/data/intake.sock',
        programs: ['/tmp/wharf-checkout'],
      });
      await worker.using('/runs/other', async () => {
        const option = worker.captureOption(
          { max_memory_bytes: 512 },
          { workdir: '/runs/mine', readable: ['/data/in'] },
        );
        expect(option.env).toEqual({ WHARF_OUTPUT_URL: 'http+unix://%2Frun%2Fwharf%2Fintake.sock' });
        expect(option.sandbox?.policy).toEqual({
          network: 'none',
          root: 'read-only',
          writable: ['/runs/mine'],
          readable: ['/data/in'],
          programs: ['/tmp/wharf-checkout'],
          hidden: [...HOME_CREDENTIALS.map((path) => join(homedir(), path)), '/data', '/runs/other'],
          sockets: [{ source: '/data/intake.sock', target: SANDBOX_INTAKE_SOCKET }],
          maxMemoryBytes: 512,
        });
      });
      // By default its programs are Wharf's own install, shown also where it lies under /tmp.
      expect(
        WorkerSandbox.create({ detection: detected }).captureOption(undefined, { workdir: '/w' }).sandbox
          ?.policy.programs,
      ).toEqual(wharfInstallPaths());
      // Once the other task ended, its directory is not hidden any more.
      expect(worker.captureOption(undefined, { workdir: '/runs/mine' }).sandbox?.policy.hidden).not.toContain(
        '/runs/other',
      );
      // The ceiling is also the default.
      expect(worker.captureOption({}, { workdir: '/w' }).sandbox?.policy.maxMemoryBytes).toBe(1024);
      for (const settings of [{ network: 'allow' as const }, { max_memory_bytes: 2048 }]) {
        let caught: unknown;
        try {
          worker.captureOption(settings, { workdir: '/w' });
        } catch (error) {
          caught = error;
        }
        expect(WharfOrchestratorError.isInstance(caught) && caught.code).toBe('SANDBOX_NOT_ALLOWED');
      }
    },
  );
});
