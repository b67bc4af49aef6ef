import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SwarmDefinitionError } from '@wharf/orchestrator';
import { type Embedded, startEmbedded } from '@wharf/orchestrator/embedded';
import { jsonSchema, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { taskQueueFor } from './temporal-env.js';

describe('startEmbedded checks swarm YAML against the tools its worker has', () => {
  let scratch: string;
  let embedded: Embedded | undefined;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'wharf-embedded-tools-'));
  });
  afterAll(async () => {
    await embedded?.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it('refuses a tool its worker lacks at its line, and accepts the ones it registered', async () => {
    const lookup = tool({
      description: 'Looks a key up.',
      inputSchema: jsonSchema<{ key: string }>({ type: 'object', properties: { key: { type: 'string' } } }),
      execute: async ({ key }) => `${key}=teal`,
    });
    embedded = await startEmbedded({
      dataDir: join(scratch, 'data'),
      temporalAddress: inject('temporalAddress'),
      taskQueue: taskQueueFor('embedded-tools'),
      ui: false,
      tools: { lookup },
    });
    expect(embedded.wharf.tools).toEqual(['lookup']);
    const yaml = (tools: string) =>
      `name: embedded-tools\nagents:\n  a: { model: mock:a, tools: [${tools}] }\ntasks:\n  t: { agent: a, prompt: go }\n`;
    const refused = await embedded.wharf.startSwarm(yaml('lookup, grep')).catch((error: unknown) => error);
    expect(SwarmDefinitionError.isInstance(refused)).toBe(true);
    expect((refused as SwarmDefinitionError).issues).toEqual([
      expect.objectContaining({ path: 'agents.a.tools[1]', line: 3, column: 39 }),
    ]);
    expect((refused as SwarmDefinitionError).issues[0]?.message).toContain('unknown tool "grep"');
    const { workflowId } = await embedded.wharf.startSwarm(
      yaml('lookup, shell'),
      {},
      { workflowId: 'embedded-tools-ok' },
    );
    expect(workflowId).toBe('embedded-tools-ok');
    // Started; no model is registered as mock:a, so the worker refuses the task before any call.
    const result = await embedded.wharf.result(workflowId);
    expect(result.tasks[0]?.reason).toContain('mock:a');
  });
});
