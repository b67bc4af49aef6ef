import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runWharf } from './wharf-cli.js';

// Real `wharf` processes (apps/cli/dist: `pnpm build` first), and the repository's `wharf`
// wrapper script: help needs no server.
const execFileAsync = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

describe('wharf help', { timeout: 120_000 }, () => {
  it('--help, -h and help list the commands and end with the exit codes; so does every command’s --help', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const help = await runWharf([flag], root);
      expect(help.code, `${flag}: ${help.stderr}`).toBe(0);
      for (const command of [
        'run [options] <swarm.yaml>',
        'rerun [options] <workflowId>',
        'status [options] [workflowId]',
        'evidence [options] <workflowId>',
      ])
        expect(help.stdout, flag).toContain(command);
      expect(help.stdout.trimEnd(), flag).toMatch(
        /Exit codes:\n(?:.*\n)*\s+4 {2}no server answered.*\n(?:.*\n)*\s+143 {2}stopped by SIGTERM$/,
      );
    }
    const run = await runWharf(['run', '--help'], root);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: wharf run [options] <swarm.yaml>');
    expect(run.stdout.trimEnd()).toMatch(
      /Exit codes:[\s\S]*130 {2}stopped by Ctrl-C\n.*143 {2}stopped by SIGTERM$/,
    );
  });

  it("the repository's wrapper passes --help, -h and help to the CLI, and keeps its own help for no command", async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const { stdout } = await execFileAsync('bash', [`${root}/wharf`, flag], {
        cwd: root,
        timeout: 120_000,
      });
      expect(stdout, flag).toContain('Usage: wharf [options] [command]');
      expect(stdout, flag).toContain('Exit codes:');
    }
    const own = await execFileAsync('bash', [`${root}/wharf`], { cwd: root, timeout: 60_000 });
    expect(own.stdout).toContain('./wharf demo [-- --keep]');
    expect(own.stdout).toContain("./wharf --help             the CLI's commands");
  });
});
