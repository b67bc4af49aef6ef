#!/usr/bin/env node
// `pnpm demo`: the repository health check of examples/repo-health.yaml on the embedded
// default (local Temporal dev server, SQLite store, in-process worker), or on the cluster
// Temporal's standard configuration names (TEMPORAL_ADDRESS, TEMPORAL_API_KEY, TLS, a profile).
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { EvidenceCompiler, formatSpawnResult } from '@wharf/evidence';
import { parseSwarm } from '@wharf/orchestrator';
import { startEmbedded } from '@wharf/orchestrator/embedded';
import { applyModelOverrides, hasOverrides, parseModelOverrides } from '@wharf/orchestrator/node';
import { safeId } from '@wharf/orchestrator/worker';
import { demoEnding } from './demo-ending.js';
import { processIo } from './output.js';
import { changedLines, progressLines } from './progress-view.js';

const io = processIo;
const root = fileURLToPath(new URL('../../../', import.meta.url));
const example = `${root}examples/repo-health.yaml`;
const keep = process.argv.includes('--keep');

// WHARF_MODEL as `wharf run` reads it (`echo`, `openai:gpt-4o-mini`, `supervisor=…`); unset: no supervisor.
const overrides = parseModelOverrides([process.env.WHARF_MODEL ?? ''], 'WHARF_MODEL');
let definition = parseSwarm(await readFile(example, 'utf8'), { source: 'examples/repo-health.yaml' });
if (hasOverrides(overrides)) {
  definition = applyModelOverrides(definition, overrides, 'WHARF_MODEL');
} else {
  delete (definition as { supervisor?: unknown }).supervisor;
}
const model = definition.supervisor && definition.agents[definition.supervisor.agent]?.model;

const started = Date.now();
// Exit 1, saying so, when the swarm did not complete (set once its result is in).
let ending: ReturnType<typeof demoEnding> | undefined;
io.out(
  `Wharf demo — swarm "${definition.name}" (${Object.keys(definition.tasks).length} tasks) from examples/repo-health.yaml`,
);
const embedded = await startEmbedded({
  dataDir: `${root}.wharf`,
  onProgress: (message) => io.err(`wharf: ${message}`),
});
process.chdir(root);
try {
  const { workflowId, firstExecutionRunId } = await embedded.wharf.startSwarm(
    definition,
    {},
    { workflowId: `repo-health-${new Date().toISOString().replace(/[:.]/g, '-')}`, workdir: root },
  );
  io.out(
    `Started ${workflowId}${embedded.uiUrl ? ` — ${embedded.workflowUrl(workflowId, firstExecutionRunId)}` : ''}\n`,
  );
  const done = embedded.wharf.result(workflowId);
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  const seen = new Map<string, string>();
  while (!finished) {
    const progress = await embedded.wharf.progress(workflowId).catch(() => undefined);
    if (progress !== undefined) for (const line of changedLines(progress, seen)) io.out(`  ${line}`);
    await Promise.race([new Promise((resolve) => setTimeout(resolve, 400)), done.catch(() => {})]);
  }
  const result = await done;
  ending = demoEnding(result);
  io.out(`\nSwarm ${result.status} in ${((Date.now() - started) / 1000).toFixed(1)} s:`);
  for (const line of progressLines(
    { swarm: result.swarm, status: result.status, step: 0, tasks: result.tasks },
    Date.now(),
  )) {
    io.out(`  ${line}`);
  }
  io.out(
    `\nEvery output is in the store; read one with: pnpm wharf outputs show ${result.outputs.dependencies?.[0] ?? '<outId>'} --range 0-400`,
  );

  const runId = safeId(workflowId);
  if (result.supervisor !== undefined) {
    io.out(
      `\nSupervisor (${model}), with ${result.supervisor.evidenceBytes} B of evidence mounted:\n${result.supervisor.answer}`,
    );
  } else {
    io.out('\nNo model configured, so no supervisor ran. It would have received these compact payloads:\n');
    const workers = await embedded.data.artifacts.listWorkers({ ownerId: 'default', runId });
    for (const worker of workers) {
      io.out(
        formatSpawnResult({
          runId,
          jobId: worker.jobId,
          workerId: worker.workerId,
          status: worker.status,
          durationMs: worker.durationMs ?? 0,
          toolIndex: await embedded.data.artifacts.listToolCalls(worker.workerId),
          summary: (await embedded.data.artifacts.getResult(worker.workerId)) ?? '',
        }),
      );
      io.out('');
    }
    const budget = 16_000;
    const report = await new EvidenceCompiler({ store: embedded.data.artifacts }).compileWithReport({
      runId,
      ownerId: 'default',
      budgetBytes: budget,
    });
    io.out(
      `…and, mounted in place of their markers just before the model call, this evidence (${report.bytesEmitted} B of a ${budget} B budget, ${report.bytesRead} B read from ${workers.length} workers' artifacts):\n`,
    );
    for (const text of report.evidence.values()) io.out(text);
    io.out('\nTo let a model answer from this evidence, set WHARF_MODEL (plus its key) and run again, e.g.');
    io.out('  WHARF_MODEL=echo pnpm demo   # offline: the supervisor says what it was sent');
    io.out('  WHARF_MODEL=openai:gpt-4o-mini OPENAI_API_KEY=… pnpm demo');
    io.out('  WHARF_MODEL=openai-compatible:http://127.0.0.1:11434/v1:llama3.1:8b pnpm demo   # Ollama');
  }
  if (embedded.uiUrl !== undefined) {
    io.out(`\nIn the Temporal Web UI: ${embedded.workflowUrl(workflowId, firstExecutionRunId)}`);
    if (result.status === 'failed') {
      io.out('  the run shows FAILED (WharfSwarmFailed: its message names the failed tasks and why);');
    }
    io.out(
      '  User Metadata: the swarm summary, its task table and the progress, failures first (Current Details);',
    );
    io.out('  Event History: one activity per subagent with a one-line summary, grouped per subagent;');
    io.out(
      `  every run of this swarm: ${embedded.uiUrl}/namespaces/${encodeURIComponent(embedded.namespace)}/workflows?query=${encodeURIComponent(`WharfSwarm="${definition.name}"`)}`,
    );
    io.out(
      `  its failed runs: ${embedded.uiUrl}/namespaces/${encodeURIComponent(embedded.namespace)}/workflows?query=${encodeURIComponent(`WharfSwarm="${definition.name}" AND WharfStatus="failed"`)}`,
    );
    io.out('  (add the WharfSwarm and WharfStatus columns once with "Configure Columns" on the list page)');
  }
  if (keep && embedded.startedServer) {
    io.out('\n--keep: the dev server and its Web UI stay up until you press Ctrl-C.');
    await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
  } else if (embedded.startedServer) {
    io.out('\nThe demo stops its dev server now; `pnpm demo -- --keep` keeps it (and the Web UI) running.');
  }
} finally {
  await embedded.stop();
}
if (ending?.line !== undefined) io.err(ending.line);
process.exitCode = ending?.exitCode ?? 0;
