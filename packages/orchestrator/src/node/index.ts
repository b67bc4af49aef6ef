// Node-only parts that the workflow-safe root leaves out: the data converter (hashes with
// node:crypto, reads the output store) and the model registry (AI SDK providers).
export {
  createOutputStoreStorageDriver,
  createWharfDataConverter,
  type OutputStoreStorageDriverOptions,
  type WharfDataConverterOptions,
} from '../converter/output-store-storage-driver.js';
export {
  createModelRegistry,
  type ModelPrice,
  type ModelRegistry,
  type ModelRegistryOptions,
  type WharfLanguageModel,
} from '../models/model-registry.js';
