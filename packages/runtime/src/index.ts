// @wharf/runtime: the Node side without the Temporal worker: the data converter, the models and the
// data directory (what commands that only read stored outputs and evidence load).

export { codecEnvNames, KeyRing, loadKeyRing, parseKeyRing } from '@wharf/codec';
export { type SubagentIds, safeId, subagentIds } from './activities/activity-identity.js';
export {
  type DataPlaneCodecServerOptions,
  startDataPlaneCodecServer,
  storedPayloadResolver,
} from './converter/data-plane-codec-server.js';
export {
  createOutputStoreStorageDriver,
  createWharfDataConverter,
  type OutputStoreStorageDriverOptions,
  readStoredPayload,
  temporalPayloadOwner,
  type WharfDataConverterOptions,
} from './converter/output-store-storage-driver.js';
export { applyModelOverrides } from './models/apply-model-overrides.js';
export { checkSwarmModels, type ModelProblem } from './models/check-swarm-models.js';
export { echoAnswer, echoModel } from './models/echo-model.js';
export { loadScriptedModel } from './models/load-scripted-model.js';
export { modelCallFailure, modelCallFailureTypes } from './models/model-call-failure.js';
export { ModelError, type ModelErrorCode, type ModelFileIssue } from './models/model-error.js';
export { MODEL_ID_FORMS, type ModelSpec, modelProviders, parseModelId } from './models/model-id.js';
export {
  hasOverrides,
  type ModelOverrides,
  type ModelUse,
  modelFor,
  parseModelOverrides,
} from './models/model-overrides.js';
export {
  createModelRegistry,
  type ModelPrice,
  type ModelRegistry,
  type ModelRegistryOptions,
  providerKeyVariables,
  type WharfLanguageModel,
} from './models/model-registry.js';
export {
  type ModelSettings,
  modelSettingsFromEnv,
  registrySummarizer,
  summarizerId,
} from './models/model-settings.js';
export { type ProviderErrorData, providerErrors } from './models/provider-errors.js';
export { type ScriptedModelFile, scriptedModelFileSchema } from './models/schemas.js';
export {
  type ScriptedModelOptions,
  type ScriptedReply,
  type ScriptedStep,
  scriptedModel,
} from './models/scripted-model.js';
export {
  type DataDir,
  type DataPlaneOptions,
  openDataDir,
  type ResolvedDataPlane,
  resolveDataPlane,
} from './worker/data-dir.js';
export { type DataPlaneLocation, dataPlaneIdentity } from './worker/data-plane-identity.js';
