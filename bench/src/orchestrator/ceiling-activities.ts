/** The ceiling's activity: does nothing, so that what it costs is Temporal's alone. */
export async function noop(): Promise<void> {}
