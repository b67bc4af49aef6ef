export {
  type ArtifactStoreFileDirectories,
  type ArtifactStoreHarness,
  describeArtifactStoreContract,
} from './artifact-store-contract.js';
