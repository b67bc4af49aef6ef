// The workflows a worker bundles (`@wharf/workflows/bundle`), for a worker with workflows of its
// own: `export * from '@wharf/orchestrator/workflows'` in its workflows file.
export * from '@wharf/workflows/bundle';
