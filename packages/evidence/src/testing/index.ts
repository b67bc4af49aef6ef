export { type ArtifactStoreHarness, describeArtifactStoreContract } from './artifact-store-contract.js';
