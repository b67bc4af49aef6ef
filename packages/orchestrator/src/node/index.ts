// Node-only parts that the workflow-safe root leaves out: the data converter (hashes with
// node:crypto, reads the output store) and the models (AI SDK providers, the offline models,
// model overrides and the failures of model calls).
export {
  createOutputStoreStorageDriver,
  createWharfDataConverter,
  type OutputStoreStorageDriverOptions,
  type WharfDataConverterOptions,
} from '../converter/output-store-storage-driver.js';
export { applyModelOverrides } from '../models/apply-model-overrides.js';
export { checkSwarmModels, type ModelProblem } from '../models/check-swarm-models.js';
export { echoAnswer, echoModel } from '../models/echo-model.js';
export { loadScriptedModel } from '../models/load-scripted-model.js';
export { modelCallFailure, modelCallFailureTypes } from '../models/model-call-failure.js';
export { ModelError, type ModelErrorCode, type ModelFileIssue } from '../models/model-error.js';
export { MODEL_ID_FORMS, type ModelSpec, modelProviders, parseModelId } from '../models/model-id.js';
export {
  hasOverrides,
  type ModelOverrides,
  type ModelUse,
  modelFor,
  parseModelOverrides,
} from '../models/model-overrides.js';
export {
  createModelRegistry,
  type ModelPrice,
  type ModelRegistry,
  type ModelRegistryOptions,
  providerKeyVariables,
  type WharfLanguageModel,
} from '../models/model-registry.js';
export {
  type ModelSettings,
  modelSettingsFromEnv,
  registrySummarizer,
  summarizerId,
} from '../models/model-settings.js';
export { type ProviderErrorData, providerErrors } from '../models/provider-errors.js';
export { type ScriptedModelFile, scriptedModelFileSchema } from '../models/schemas.js';
export {
  type ScriptedModelOptions,
  type ScriptedReply,
  type ScriptedStep,
  scriptedModel,
} from '../models/scripted-model.js';
