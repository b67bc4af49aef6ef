// Entry point of `@wharf/evidence/output-store`: kept apart from the root so that importing
// the root never loads `@wharf/output-store` and its storage backends.
export { OutputStoreArtifactStore } from './output-store-artifact-store.js';
