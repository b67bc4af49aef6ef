import { Context } from '@temporalio/activity';
import {
  type ArtifactStore,
  createEvidenceTools,
  EvidenceCompiler,
  evidenceMiddleware,
} from '@wharf/evidence';
import type { OutputStore } from '@wharf/output-store';
import { generateText, isStepCount, wrapLanguageModel } from 'ai';
import { usageOf } from '../agent/usage-of.js';
import type { ModelRegistry } from '../models/model-registry.js';
import { swarmWorkflowId } from '../shared/swarm-workflow-id.js';
import type { SuperviseInput, SuperviseResult } from '../shared/types.js';
import { modelCallTelemetry, type WharfTracing } from '../tracing/wharf-tracing.js';
import { safeId } from './activity-identity.js';
import { heartbeatWhile } from './heartbeat-while.js';
import { supervisorAnswer } from './supervisor-answer.js';
import { SUPERVISOR_SYSTEM, supervisorPrompt } from './supervisor-prompt.js';

/** What {@link supervise} needs besides its input. */
export interface SuperviseDependencies {
  store: OutputStore;
  artifacts: ArtifactStore;
  models: ModelRegistry;
  /** Answers longer than this many bytes are EMITted; the result carries a ref and a head. Default 8 KiB. */
  inlineAnswerBytes?: number;
  /** Traces the model calls (OpenTelemetry); default off. */
  tracing?: WharfTracing;
}

/**
 * The supervisor's model call. The model sees the compact payloads with their evidence
 * markers expanded under the byte budget by `evidenceMiddleware`, just before each call;
 * neither this activity's input nor its result holds any expanded evidence. The pull tools
 * (`get_worker_evidence`, `get_tool_output`) let the model dig deeper within the same
 * owner and run.
 */
export async function supervise(
  input: SuperviseInput,
  dependencies: SuperviseDependencies,
): Promise<SuperviseResult> {
  const model = dependencies.models.resolve(input.agent.model);
  const runId = safeId(swarmWorkflowId(input));
  const ownerId = safeId(input.ownerId);
  const compiler = new EvidenceCompiler({ store: dependencies.artifacts });
  let evidenceBytes = 0;
  const mounted = wrapLanguageModel({
    model,
    middleware: evidenceMiddleware({
      compiler,
      runId,
      ownerId,
      budgetBytes: input.budgetBytes,
      onMount: (result) => {
        evidenceBytes = Math.max(evidenceBytes, byteLength(JSON.stringify(result.messages)) - promptBytes);
      },
    }),
  });
  const prompt = supervisorPrompt(input.question, input.compacts);
  const promptBytes = byteLength(
    JSON.stringify([{ role: 'user', content: [{ type: 'text', text: prompt }] }]),
  );
  const context = Context.current();
  const result = await heartbeatWhile(
    context,
    () =>
      generateText({
        model: mounted,
        system: input.agent.system ?? SUPERVISOR_SYSTEM,
        prompt,
        tools: createEvidenceTools({ compiler, runId, ownerId }),
        stopWhen: isStepCount(input.agent.max_steps),
        abortSignal: context.cancellationSignal,
        ...modelCallTelemetry(dependencies.tracing, 'wharf.supervise'),
      }),
    { step: 'supervisor' },
  );
  const usage = usageOf(
    result.totalUsage,
    dependencies.models.price?.(input.agent.model),
    result.steps.length,
  );
  const info = context.info;
  const stored = await supervisorAnswer(dependencies.store, {
    text: result.text,
    ownerId,
    runId,
    model: input.agent.model,
    idempotencyKey: `${info.workflowExecution?.workflowId ?? 'standalone'}/${info.workflowExecution?.runId ?? ''}/${info.activityId}/answer`,
    inlineBytes: dependencies.inlineAnswerBytes,
  });
  return { ...stored, evidenceBytes: Math.max(0, evidenceBytes), usage };
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
